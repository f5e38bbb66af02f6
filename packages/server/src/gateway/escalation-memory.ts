import type { MatchedRule } from '@authority-runtime/sdk/wire';
import { LRUCache } from 'lru-cache';

/** An escalation the gateway remembers for a call (contract §11, step 3). */
export interface RememberedEscalation {
  intentId: string;
  escalationId: string;
  decidingRule: MatchedRule | undefined;
  /** The `Idempotency-Key` of `POST /intent/:id/token` for this escalation, the same on every try. */
  tokenKey: string;
}

/** At least this long, whatever the clocks say, so a skewed clock cannot make the memory useless. */
const MIN_REMEMBER_MS = 60_000;
/**
 * How long an escalation is kept after its `expiresAt`: the first repeat in that time hears that it
 * expired (or, denied, that it was denied) instead of being submitted again as if nothing happened.
 */
export const EXPIRED_NOTICE_MS = 24 * 60 * 60 * 1000;

/**
 * The escalations of calls, by {@link sameCallKey}, each kept until a day after its
 * `approval.expiresAt`: a repeated call is then answered from the escalation (pending, approved,
 * denied or expired, as the service says) instead of being submitted again. In process memory and
 * bounded (least recently used entries go first): losing an entry only means the next repeat is
 * submitted anew.
 */
export class EscalationMemory {
  readonly #entries: LRUCache<string, RememberedEscalation>;
  readonly #now: () => number;

  constructor(options: { max?: number; now?: () => number } = {}) {
    const now = options.now ?? Date.now;
    this.#now = now;
    // ttlResolution 0: read the clock on every check instead of caching it for a millisecond.
    this.#entries = new LRUCache({
      max: options.max ?? 10_000,
      ttl: MIN_REMEMBER_MS,
      ttlResolution: 0,
      perf: { now },
    });
  }

  /** Remembers the escalation of a call until a day after `expiresAt` (ISO 8601, the service's clock). */
  remember(key: string, escalation: RememberedEscalation, expiresAt: string): void {
    const left = Date.parse(expiresAt) - this.#now();
    const ttl = Math.max(Number.isFinite(left) ? left : 0, MIN_REMEMBER_MS) + EXPIRED_NOTICE_MS;
    this.#entries.set(key, escalation, { ttl });
  }

  get(key: string): RememberedEscalation | undefined {
    return this.#entries.get(key);
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }
}
