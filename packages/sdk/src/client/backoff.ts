/** How retries are spaced: exponential backoff with full jitter, and `retry-after` honoured. */
export interface BackoffSettings {
  /** The ceiling of the first retry's delay, ms. */
  baseDelayMs: number;
  /** No retry waits longer than this unless the service asked for it with `retry-after`, ms. */
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the call fails with the 429, ms. */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffSettings> = Object.freeze({
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});

/**
 * @internal
 * The delay before retry number `retry` (1 for the first retry): full jitter, a uniform draw in
 * `[0, min(maxDelayMs, baseDelayMs · 2^(retry-1)))`, so that many clients failing together do not
 * retry together.
 *
 * @example
 * ```ts
 * backoffDelay(3, DEFAULT_BACKOFF, Math.random); // somewhere in [0, 1000)
 * ```
 */
export function backoffDelay(retry: number, settings: BackoffSettings, random: () => number): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * @internal
 * The wait a `retry-after` header asks for, in ms: delay-seconds (`120`) or an HTTP date, never
 * negative; `undefined` when the header is absent or unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter('2', Date.now()); // 2000
 * parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', Date.now());
 * ```
 */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, date - now);
}
