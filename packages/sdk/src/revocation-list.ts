import { isRecord } from './keys.js';
import type { Revocation } from './wire/physical.js';

/** One entry of `GET /v1/physical/revocations` (the wire contract's `Revocation`). */
export type { Revocation };

/** One page of `GET /v1/physical/revocations?since=`. */
export interface RevocationPage {
  /** Revocations with `revokedAtMs > since`, oldest first, at most {@link REVOCATIONS_PAGE_LIMIT}. */
  revocations: Revocation[];
  /** The last returned `revokedAtMs`, or `since` for an empty page: the next call's `since`. */
  asOfMs: number;
  /** Whether another page follows: the service's `hasMore`, or, when absent, a full page. */
  hasMore: boolean;
}

/** Most revocations the service returns per call (document 02, "Limits"). */
export const REVOCATIONS_PAGE_LIMIT = 1000;

/**
 * @internal
 * Checks one page of the revocations route: `{revocations: [{tokenJti, revokedAtMs, reason}],
 * asOfMs, hasMore?, serverTimeMs?}`. Returns the page, or why it is not one. `hasMore` is the
 * contract's addition; without it a full page ({@link REVOCATIONS_PAGE_LIMIT}) means "ask again".
 *
 * @example
 * ```ts
 * const page = parseRevocationPage({ revocations: [], asOfMs: 0, hasMore: false });
 * if (typeof page === 'string') throw new Error(page);
 * ```
 */
export function parseRevocationPage(body: unknown): RevocationPage | string {
  if (!isRecord(body)) return 'the answer is not a JSON object';
  const { revocations, asOfMs, hasMore } = body;
  if (!Array.isArray(revocations)) return 'revocations is not an array';
  if (!isMs(asOfMs)) return 'asOfMs is not an integer >= 0';
  if (hasMore !== undefined && typeof hasMore !== 'boolean') return 'hasMore is not a boolean';
  const parsed: Revocation[] = [];
  for (const [index, entry] of revocations.entries()) {
    if (!isRecord(entry)) return `revocations[${index}] is not an object`;
    const { tokenJti, revokedAtMs, reason } = entry;
    if (typeof tokenJti !== 'string' || tokenJti === '')
      return `revocations[${index}].tokenJti is not a string`;
    if (!isMs(revokedAtMs)) return `revocations[${index}].revokedAtMs is not an integer >= 0`;
    if (typeof reason !== 'string') return `revocations[${index}].reason is not a string`;
    parsed.push({ tokenJti, revokedAtMs, reason });
  }
  return {
    revocations: parsed,
    asOfMs,
    hasMore: hasMore ?? parsed.length >= REVOCATIONS_PAGE_LIMIT,
  };
}

/**
 * @internal
 * The revoked token ids a verifier knows, with the `since` cursor of the next incremental sync.
 *
 * Memory stays bounded: a revocation older than the longest token lifetime (plus margins) names a
 * token that has expired anyway, so {@link RevocationList.prune} forgets it. Revocations are added
 * oldest first, so pruning stops at the first entry it keeps.
 *
 * @example
 * ```ts
 * const list = new RevocationList();
 * list.apply({ revocations: [{ tokenJti: 'j1', revokedAtMs: 5, reason: 'lost' }], asOfMs: 5, hasMore: false });
 * list.has('j1'); // true
 * list.since; // 5
 * ```
 */
export class RevocationList {
  readonly #revokedAt = new Map<string, number>();
  #since = 0;

  /** The `since` of the next call: the last page's `asOfMs`. */
  get since(): number {
    return this.#since;
  }

  /** Number of revocations held. */
  get size(): number {
    return this.#revokedAt.size;
  }

  /** Whether the token id is revoked (and not yet forgotten). */
  has(jti: string): boolean {
    return this.#revokedAt.has(jti);
  }

  /** Records a page and moves the cursor to its `asOfMs` (never backwards). */
  apply(page: RevocationPage): void {
    for (const { tokenJti, revokedAtMs } of page.revocations) {
      if (!this.#revokedAt.has(tokenJti)) this.#revokedAt.set(tokenJti, revokedAtMs);
    }
    this.#since = Math.max(this.#since, page.asOfMs);
  }

  /** Forgets revocations with `revokedAtMs + retentionMs <= nowMs`; returns how many. */
  prune(nowMs: number, retentionMs: number): number {
    let removed = 0;
    for (const [jti, revokedAtMs] of this.#revokedAt) {
      if (revokedAtMs + retentionMs > nowMs) break;
      this.#revokedAt.delete(jti);
      removed += 1;
    }
    return removed;
  }
}

function isMs(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
