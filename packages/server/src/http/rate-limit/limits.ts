import { parseAddress } from '../../foundation/ip-allowlist.js';
import type { Plan } from '../../tenancy/tenant.js';

/** Every limit of contract section 3 is a budget per minute. */
export const WINDOW_MS = 60_000;

/** Per API key, by plan; enterprise uses the tenant's own `rateLimitPerMinute`. */
export const PLAN_LIMITS: Readonly<Record<Exclude<Plan, 'enterprise'>, number>> = {
  free: 100,
  pro: 500,
  business: 2_000,
};

/** `POST /portal/login`: per client address and per account. */
export const LOGIN_LIMIT_PER_MINUTE = 10;

export type LimitScope = 'key' | 'address' | 'login_address' | 'login_account';

/** A limit to count a request against: its counter key and its budget per window. */
export interface LimitSpec {
  scope: LimitScope;
  key: string;
  limit: number;
}

/** A counter after this request was added to it. */
export interface LimitCount {
  scope: LimitScope;
  limit: number;
  count: number;
  /** Time until the counter's window ends. */
  resetInMs: number;
}

/**
 * The per-minute budget of an API key. An enterprise tenant always has `rateLimitPerMinute` (the
 * tenant service requires it); should a row lack it, the business budget applies.
 */
export function planLimit(plan: Plan, rateLimitPerMinute: number | null): number {
  if (plan === 'enterprise') return rateLimitPerMinute ?? PLAN_LIMITS.business;
  return PLAN_LIMITS[plan];
}

export function remaining(count: LimitCount): number {
  return Math.max(0, count.limit - count.count);
}

export function isExceeded(count: LimitCount): boolean {
  return count.count > count.limit;
}

/** Whole seconds until the window ends, at least 1 (a client must never be told to retry at once). */
export function secondsUntilReset(count: LimitCount): number {
  return Math.max(1, Math.ceil(count.resetInMs / 1000));
}

/** True when `a` constrains the client more than `b`. */
function moreConstraining(a: LimitCount, b: LimitCount): boolean {
  const aExceeded = isExceeded(a);
  if (aExceeded !== isExceeded(b)) return aExceeded;
  if (!aExceeded && remaining(a) !== remaining(b)) return remaining(a) < remaining(b);
  return a.resetInMs > b.resetInMs;
}

/**
 * The limit the headers describe when several apply (contract section 3): an exceeded one if any
 * (the one that ends last, since the client must wait for it), else the one with the fewest requests
 * left (on a tie, the one that ends last).
 */
export function mostConstraining(counts: readonly LimitCount[]): LimitCount | undefined {
  let best: LimitCount | undefined;
  for (const candidate of counts) {
    if (best === undefined || moreConstraining(candidate, best)) best = candidate;
  }
  return best;
}

/** The `x-ratelimit-*` headers of a limit: budget, requests left, seconds until the window ends. */
export function rateLimitHeaders(count: LimitCount): Record<string, string> {
  return {
    'x-ratelimit-limit': String(count.limit),
    'x-ratelimit-remaining': String(remaining(count)),
    'x-ratelimit-reset': String(secondsUntilReset(count)),
  };
}

/**
 * The counter of a client address: IPv4 addresses alone, IPv6 addresses by their /64 (one host
 * usually holds a whole /64, so counting single IPv6 addresses would let it pick a fresh one per
 * request). Text that is no address is counted as given.
 */
export function addressBucket(address: string): string {
  const parsed = parseAddress(address);
  if (parsed === undefined) return address;
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = parsed.toNormalizedString().split(':').slice(0, 4);
  return `${parts.map((part) => part.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
