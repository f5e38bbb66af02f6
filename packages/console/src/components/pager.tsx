import { useEffect, useRef, useState } from 'preact/hooks';
import { focusLost } from './focus.js';

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

/** How long after a press the pager keeps the focus through the page's loading. */
const FOCUS_KEPT_MS = 10_000;

export function PagerButtons({
  pager,
  nextCursor,
  label = 'Pages',
}: {
  pager: ReturnType<typeof usePager>;
  /** The next page's cursor; null on the last page, undefined while the page loads. */
  nextCursor: string | null | undefined;
  /** The navigation's accessible name: distinct when a page has two lists. */
  label?: string;
}) {
  const previous = useRef<HTMLButtonElement>(null);
  const next = useRef<HTMLButtonElement>(null);
  const current = useRef<HTMLSpanElement>(null);
  const pressedAt = useRef(0);
  // A button pressed to page may be disabled once its page is there (the first, the last): the
  // focus stays in the pager, on the button that still goes somewhere, not on the page's body.
  useEffect(() => {
    if (pressedAt.current === 0 || Date.now() - pressedAt.current > FOCUS_KEPT_MS || !focusLost()) return;
    pressedAt.current = 0;
    const target = [next.current, previous.current].find((button) => button !== null && !button.disabled);
    (target ?? current.current)?.focus();
  });
  const go = (move: () => void) => {
    pressedAt.current = Date.now();
    move();
  };
  return (
    <nav
      class="pager"
      aria-label={label}
      onFocusOut={(event) => {
        // The focus went somewhere else on purpose: the pager no longer keeps it.
        const to = event.relatedTarget;
        if (to instanceof Node && !event.currentTarget.contains(to)) pressedAt.current = 0;
      }}
    >
      <button type="button" ref={previous} disabled={pager.page <= 1} onClick={() => go(pager.previous)}>
        Previous page
      </button>
      <span ref={current} tabIndex={-1}>
        Page {pager.page}
      </span>
      <button
        type="button"
        ref={next}
        disabled={nextCursor === null}
        aria-disabled={nextCursor === undefined}
        onClick={() => nextCursor && go(() => pager.next(nextCursor))}
      >
        Next page
      </button>
    </nav>
  );
}
