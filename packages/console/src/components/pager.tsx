import { useState } from 'preact/hooks';

/**
 * Keyset paging (contract §4.7, §6): the cursors of the pages seen so far, so "Previous" goes back
 * and "Next" follows the server's nextCursor.
 */
export function usePager(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: Array<string | undefined> }>({
    key: resetKey,
    cursors: [undefined],
  });
  const cursors = state.key === resetKey ? state.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];
  return {
    cursor,
    page: cursors.length,
    next: (nextCursor: string) => setState({ key: resetKey, cursors: [...cursors, nextCursor] }),
    previous: () => setState({ key: resetKey, cursors: cursors.slice(0, -1) }),
  };
}

export function PagerButtons({
  pager,
  nextCursor,
  label = 'Pages',
}: {
  pager: ReturnType<typeof usePager>;
  nextCursor: string | null | undefined;
  /** The navigation's accessible name: distinct when a page has two lists. */
  label?: string;
}) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={pager.page <= 1} onClick={pager.previous}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button type="button" disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}
