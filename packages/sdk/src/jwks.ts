import type { JWK } from 'jose';
import { sameJson } from './canonical.js';
import { KeySourceError } from './errors.js';
import { isRecord, keyAlgorithm } from './keys.js';

/**
 * Where the verifier finds the public key for a token's `kid`.
 *
 * `getKey` resolves to the JWK published under that kid, or `undefined` when the kid is unknown
 * (the verifier then reports `KID_MISMATCH`). It throws {@link KeySourceError} (or anything else)
 * only when it has no key set at all to consult; the verifier reports `KEY_SOURCE_UNAVAILABLE`.
 */
export interface KeySource {
  getKey(kid: string): Promise<JWK | undefined>;
}

/** A JSON Web Key Set as published at `GET /.well-known/authority/:tenantId/jwks.json`. */
export interface JwksDocument {
  keys: JWK[];
}

/**
 * A fixed, offline key set: the keys are pinned in the verifier's configuration and never fetched.
 *
 * Every key must carry a `kid` and an `alg` (`EdDSA` with an Ed25519 key, `RS256` with an RSA key,
 * `ES256` with a P-256 key); the algorithm a token must use is taken from that `alg`, never from the
 * token. A malformed key or a duplicate kid throws a `TypeError` at construction (programmer misuse).
 * Private members (`d`, ...) are ignored: only the public part is ever used.
 *
 * @example
 * ```ts
 * import { staticJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
 *
 * const jwks = staticJwks({
 *   keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
 *            kid: 'acme-1700000000-ABCDEFGH', alg: 'EdDSA', use: 'sig' }],
 * });
 * const result = await verifyAuthorityToken(token, {
 *   jwks,
 *   expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/api' },
 * });
 * ```
 */
export function staticJwks(jwks: JwksDocument): KeySource {
  const byKid = pinnedKeyMap(jwks, 'staticJwks', false);
  return {
    getKey: async (kid) => byKid.get(kid),
  };
}

/**
 * Keys a verifier of receipts or exports trusts: a JWK set (typically the tenant's JWKS merged with
 * its archive of RETIRED keys, `GET /.well-known/authority/:tenantId/jwks-archive.json`) or any
 * {@link KeySource} (for example {@link staticJwks}).
 */
export type PinnedKeys = JwksDocument | KeySource;

/**
 * @internal
 * Turns {@link PinnedKeys} into a key source. A key source is used as is. A JWK set is checked as
 * {@link staticJwks} checks it, except that a kid listed twice with byte-identical keys is accepted
 * once (the current JWKS and the archive fetched a moment apart may both list a key that was
 * retired in between); a kid listed twice with different keys throws a `TypeError`.
 *
 * @example
 * ```ts
 * const keys = pinnedKeySource({ keys: [...current.keys, ...archive.keys] }, 'verifyReceipt');
 * await keys.getKey('acme-1700000000-ABCDEFGH');
 * ```
 */
export function pinnedKeySource(pinned: PinnedKeys, caller: string): KeySource {
  if (isRecord(pinned) && typeof pinned.getKey === 'function') return pinned as KeySource;
  if (!isRecord(pinned) || !Array.isArray(pinned.keys)) {
    throw new TypeError(`${caller}: options.jwks must be a JWK set { keys: JWK[] } or a key source`);
  }
  const byKid = pinnedKeyMap(pinned as JwksDocument, caller, true);
  return {
    getKey: async (kid) => byKid.get(kid),
  };
}

function pinnedKeyMap(jwks: JwksDocument, caller: string, mergeIdentical: boolean): Map<string, JWK> {
  if (!isRecord(jwks) || !Array.isArray(jwks.keys)) {
    throw new TypeError(`${caller} expects a JWK set: { keys: JWK[] }`);
  }
  const byKid = new Map<string, JWK>();
  for (const [index, key] of jwks.keys.entries()) {
    if (!isRecord(key)) throw new TypeError(`${caller}: keys[${index}] is not an object`);
    const { kid } = key;
    if (typeof kid !== 'string' || kid === '') throw new TypeError(`${caller}: keys[${index}] has no kid`);
    const known = byKid.get(kid);
    if (known !== undefined) {
      if (mergeIdentical && sameJson(known, key)) continue;
      throw new TypeError(`${caller}: duplicate kid ${kid}`);
    }
    if (key.use !== undefined && key.use !== 'sig') {
      throw new TypeError(`${caller}: key ${kid} is not a signature key (use ${String(key.use)})`);
    }
    const bound = keyAlgorithm(key);
    if ('problem' in bound) throw new TypeError(`${caller}: key ${kid}: ${bound.problem}`);
    byKid.set(kid, Object.freeze({ ...key }));
  }
  return byKid;
}

/** The key source {@link remoteJwks} returns: a {@link KeySource} that can also be loaded ahead of use. */
export interface RemoteKeySource extends KeySource {
  /**
   * Makes sure a key set is cached, so later lookups can answer without the network: fetches the
   * set when none is loaded yet or the cached one is older than `maxAgeMs` (same rate limit and
   * shared in-flight fetch as lookups). Resolves when a set is cached, even if the refresh of an
   * older cached set failed; rejects with {@link KeySourceError} when no set is cached.
   *
   * @example
   * ```ts
   * const jwks = remoteJwks('https://authority.example.com/.well-known/jwks.json');
   * await jwks.ensureLoaded(); // before going offline
   * ```
   */
  ensureLoaded(): Promise<void>;
}

/** Options of {@link remoteJwks}. */
export interface RemoteJwksOptions {
  /** The fetch implementation; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Minimum time between two re-fetches of the set, in ms (default 30 000). An unknown kid triggers
   * a re-fetch only when the previous re-fetch or failed fetch is at least this old, so an outage or
   * a flood of tokens with made-up kids never hammers the endpoint; a scheduled load that worked
   * (the first, or a refresh past `maxAgeMs`) does not count, so a rotation just after it is seen.
   */
  minRefetchIntervalMs?: number;
  /**
   * Age after which a cached set is refreshed on the next lookup, in ms (default 300 000, the
   * endpoint's `cache-control: max-age=300`). This is how a key that left the set (RETIRED) stops
   * verifying. A refresh that fails keeps the cached set.
   */
  maxAgeMs?: number;
  /** Time source in ms since the epoch; defaults to `Date.now`. */
  clock?: () => number;
  /** Timeout of one fetch, in ms (default 5 000). */
  timeoutMs?: number;
}

/**
 * A key set fetched from the service's JWKS endpoint
 * (`GET /.well-known/authority/:tenantId/jwks.json`) and cached.
 *
 * - The first lookup fetches the set. An unknown kid re-fetches it, at most once per
 *   `minRefetchIntervalMs` (30 s), so a rotation is picked up without a restart. The interval
 *   counts from the last re-fetch or failed fetch: a kid published just after the first load (or a
 *   scheduled refresh) is fetched at once.
 * - A cached set older than `maxAgeMs` (300 s) is refreshed on the next lookup.
 * - An outage keeps the cached set: lookups keep answering from it.
 * - Concurrent lookups share one in-flight fetch.
 * - With no set ever loaded and the endpoint unreachable, `getKey` throws {@link KeySourceError}
 *   (the verifier reports `KEY_SOURCE_UNAVAILABLE`); the next attempt is again rate limited.
 * - Keys without a kid, with `use` other than `sig`, without a supported `alg` matching their type,
 *   or sharing a kid with another key are left out of the set (they never verify).
 *
 * Use an `https:` URL in production.
 *
 * @example
 * ```ts
 * import { remoteJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
 *
 * const jwks = remoteJwks('https://authority.example.com/.well-known/authority/acme/jwks.json');
 * const result = await verifyAuthorityToken(token, {
 *   jwks,
 *   expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/api' },
 * });
 * ```
 */
export function remoteJwks(url: string | URL, options: RemoteJwksOptions = {}): RemoteKeySource {
  const target = new URL(url); // throws TypeError on a malformed URL: programmer misuse
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? Date.now;
  const minInterval = nonNegative(options.minRefetchIntervalMs, 30_000, 'minRefetchIntervalMs');
  const maxAge = nonNegative(options.maxAgeMs, 300_000, 'maxAgeMs');
  const timeoutMs = nonNegative(options.timeoutMs, 5_000, 'timeoutMs');
  if (typeof fetchImpl !== 'function') throw new TypeError('remoteJwks: no fetch implementation available');
  if (typeof clock !== 'function') throw new TypeError('remoteJwks: clock must be a function');

  let keys: Map<string, JWK> | undefined;
  let loadedAt = Number.NEGATIVE_INFINITY;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let lastError: unknown;
  let inFlight: Promise<boolean> | undefined;

  async function load(): Promise<void> {
    const response = await fetchImpl(target, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`JWKS endpoint answered HTTP ${response.status}`);
    }
    const body: unknown = await response.json();
    if (!isRecord(body) || !Array.isArray(body.keys)) throw new Error('JWKS endpoint answered no key set');
    keys = usableKeys(body.keys);
    loadedAt = clock();
    lastError = undefined;
  }

  /**
   * Starts a fetch when none is running and the rate limit allows; resolves, once it settled, with
   * whether it loaded a set. The limit spaces re-fetches on an unknown kid and retries after a
   * failure; a scheduled load that worked (the first, or one past max-age) does not start it, so a
   * kid published just after it is still fetched at once.
   */
  function refresh(now: number, scheduled: boolean): Promise<boolean> | undefined {
    if (inFlight !== undefined) return inFlight;
    if (now - lastAttemptAt < minInterval) return undefined;
    lastAttemptAt = now;
    inFlight = load()
      .then(
        () => {
          if (scheduled) lastAttemptAt = Number.NEGATIVE_INFINITY;
          return true;
        },
        (error: unknown) => {
          lastError = error;
          return false;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }

  /**
   * The cached set, fetched first when missing or too old, and whether this call loaded it; throws
   * when none is cached.
   */
  async function loaded(now: number): Promise<{ set: Map<string, JWK>; fresh: boolean }> {
    let fresh = false;
    if (keys === undefined || now - loadedAt >= maxAge) fresh = (await refresh(now, true)) ?? false;
    if (keys === undefined) {
      throw new KeySourceError(`no JWKS loaded from ${target.href}`, { cause: lastError });
    }
    return { set: keys, fresh };
  }

  return {
    async ensureLoaded() {
      await loaded(clock());
    },
    async getKey(kid) {
      const now = clock();
      // The common case, a fresh set that holds the kid, answers without waiting on anything.
      const fresh = keys !== undefined && now - loadedAt < maxAge ? keys.get(kid) : undefined;
      if (fresh !== undefined) return fresh;
      // An unknown kid in a set this call just loaded is not fetched again at once.
      const { set, fresh: justLoaded } = await loaded(now);
      if (!set.has(kid) && !justLoaded) await refresh(now, false);
      return keys?.get(kid);
    },
  };
}

function usableKeys(candidates: unknown[]): Map<string, JWK> {
  const byKid = new Map<string, JWK>();
  const duplicated = new Set<string>();
  for (const key of candidates) {
    if (!isRecord(key)) continue;
    const { kid } = key;
    if (typeof kid !== 'string' || kid === '') continue;
    if (key.use !== undefined && key.use !== 'sig') continue;
    if ('problem' in keyAlgorithm(key)) continue;
    if (byKid.has(kid)) duplicated.add(kid);
    byKid.set(kid, Object.freeze({ ...key }));
  }
  // A kid published twice is ambiguous: neither copy is trusted.
  for (const kid of duplicated) byKid.delete(kid);
  return byKid;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`remoteJwks: ${name} must be a finite number >= 0`);
  }
  return value;
}
