/**
 * A list the service pages through: `await` it for the first page, or iterate it with `for await`
 * to get every item of every page, requested lazily one page at a time.
 *
 * @example
 * ```ts
 * const first = await client.audit.timeline({ limit: 50 }); // {events, nextCursor}
 * for await (const event of client.audit.timeline({ eventType: 'intent.decided' })) {
 *   console.log(event.index, event.summary);
 * }
 * for await (const page of client.audit.timeline().pages()) console.log(page.events.length);
 * ```
 */
export class PagedList<Item, Page> implements PromiseLike<Page>, AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page>;
  readonly #items: (page: Page) => readonly Item[];
  readonly #next: (page: Page) => string | undefined;

  /**
   * @param fetchPage Fetches the page after `cursor` (the first page for `undefined`).
   * @param items The items of a page.
   * @param next The cursor of the page after it, `undefined` on the last page.
   */
  constructor(
    fetchPage: (cursor: string | undefined) => Promise<Page>,
    items: (page: Page) => readonly Item[],
    next: (page: Page) => string | undefined,
  ) {
    this.#fetchPage = fetchPage;
    this.#items = items;
    this.#next = next;
  }

  /** Fetches the first page. */
  // biome-ignore lint/suspicious/noThenProperty: awaiting the list for its first page is the documented use
  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#fetchPage(undefined).then(onFulfilled, onRejected);
  }

  /** Every page, in order, each fetched when the previous one has been consumed. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.#fetchPage(cursor);
      yield page;
      cursor = this.#next(page);
    } while (cursor !== undefined);
  }

  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#items(page);
  }

  /** Collects every item (mind the size of the list). */
  async all(): Promise<Item[]> {
    const out: Item[] = [];
    for await (const item of this) out.push(item);
    return out;
  }
}

/**
 * @internal
 * The cursor after a keyset page: its `nextCursor` when it is a non-empty string.
 *
 * @example
 * ```ts
 * nextCursorOf({ nextCursor: null }); // undefined
 * ```
 */
export function nextCursorOf(page: { nextCursor: string | null }): string | undefined {
  return typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
}
