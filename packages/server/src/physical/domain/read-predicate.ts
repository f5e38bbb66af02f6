/**
 * Reading one predicate of the attested physical state for one clause (contract §9): the value,
 * or why it cannot be trusted.
 *
 * - Reserved predicates (`classifier/*`, `goal/oiCode`) are the service's own values: always `ok`,
 *   whatever the caller sent under those names.
 * - For a clause that requires safety-rated input, a predicate that is missing, `unavailable`, on an
 *   `untrusted` channel (the default protocol) or not `safetyRated` (the default) is *failing*.
 * - For a clause with `maxStateAgeMs`, a value whose `asOfTimestampMs` is further than that from
 *   the server clock, in either direction, is *failing* (`stale`): a timestamp from the future is
 *   no better evidence than an old one.
 * - Otherwise a missing or `unavailable` predicate is simply absent.
 */
import { isReservedPredicate, type ReservedPredicate, type ScalarValue } from './physical-clause.js';
import type { PhysicalState } from './physical-types.js';

export type PredicateStatus = 'ok' | 'missing' | 'unavailable' | 'untrusted' | 'not-safety-rated' | 'stale';

export interface PredicateReading {
  status: PredicateStatus;
  /** True when the status makes the clause fall back to its fail-closed reading. */
  failing: boolean;
  /** Present when status is `ok`. */
  value?: ScalarValue;
  /** A short human-readable account, for the decision's reasons. */
  account: string;
}

export type ReservedValues = Readonly<Record<ReservedPredicate, ScalarValue>>;

export interface ReadOptions {
  requireSafetyRated: boolean;
  maxStateAgeMs: number | undefined;
  nowMs: number;
}

export function readPredicate(
  state: PhysicalState,
  reserved: ReservedValues,
  predicate: string,
  options: ReadOptions,
): PredicateReading {
  if (isReservedPredicate(predicate)) {
    const value = reserved[predicate];
    return { status: 'ok', failing: false, value, account: `${predicate} = ${JSON.stringify(value)}` };
  }
  const entry = Object.hasOwn(state, predicate) ? state[predicate] : undefined;
  if (entry === undefined) {
    return { status: 'missing', failing: options.requireSafetyRated, account: `${predicate} is missing` };
  }
  if (entry.kind === 'unavailable') {
    return {
      status: 'unavailable',
      failing: options.requireSafetyRated,
      account: `${predicate} is unavailable (${entry.reason})`,
    };
  }
  if (options.requireSafetyRated) {
    const protocol = entry.attestation.protocol ?? 'untrusted';
    if (protocol === 'untrusted') {
      return {
        status: 'untrusted',
        failing: true,
        account: `${predicate} arrived on an untrusted channel (${entry.attestation.channel})`,
      };
    }
    if (entry.attestation.safetyRated !== true) {
      return {
        status: 'not-safety-rated',
        failing: true,
        account: `${predicate} is not from a safety-rated channel (${entry.attestation.channel})`,
      };
    }
  }
  if (options.maxStateAgeMs !== undefined) {
    const age = options.nowMs - entry.asOfTimestampMs;
    // Written so that a non-finite timestamp is stale too.
    if (!(Math.abs(age) <= options.maxStateAgeMs)) {
      return {
        status: 'stale',
        failing: true,
        account:
          age < 0
            ? `${predicate} is dated ${-age} ms in the future, beyond the limit of ${options.maxStateAgeMs} ms`
            : `${predicate} is ${age} ms old, beyond the limit of ${options.maxStateAgeMs} ms`,
      };
    }
  }
  return {
    status: 'ok',
    failing: false,
    value: entry.value,
    account: `${predicate} = ${JSON.stringify(entry.value)}`,
  };
}
