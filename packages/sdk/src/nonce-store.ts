import { NonceStoreError } from './errors.js';
import { isRecord } from './keys.js';

/** What the verifier tells a nonce store about the token whose nonce it consumes. */
export interface NonceConsumeContext {
  /** The compact token, as received. */
  token: string;
  /** The verifying adapter (equal to the token's `adapterId`, which was already checked). */
  adapterId: string;
  /** The target system (equal to the token's `targetSystem`, which was already checked). */
  targetSystem: string;
}

/**
 * Remembers which token nonces were used, so that each Authority Decision Token executes once.
 *
 * `consume` atomically records the nonce and resolves `true` when this is its first use, `false`
 * when it was used before. `expiresAtMs` is the instant after which the verifier rejects the token
 * anyway (its `exp` plus the allowed clock skew), so the nonce may be forgotten from then on.
 *
 * When the store cannot tell (unreachable, full, unexpected answer) it must throw — preferably a
 * {@link NonceStoreError} — and never guess `true`. The verifier maps a throw to a failed result
 * (`NONCE_STORE_UNAVAILABLE`, or the remote store's own reason); only a literal `true` is accepted.
 *
 * @example
 * ```ts
 * import type { NonceStore } from '@authority-runtime/sdk';
 *
 * const store: NonceStore = {
 *   async consume(nonce, expiresAtMs) {
 *     const inserted = await db.query(
 *       'INSERT INTO used_nonces (nonce, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
 *       [nonce, new Date(expiresAtMs)],
 *     );
 *     return inserted.rowCount === 1;
 *   },
 * };
 * ```
 */
export interface NonceStore {
  consume(nonce: string, expiresAtMs: number, context: NonceConsumeContext): Promise<boolean>;
}

/** Options of {@link InMemoryNonceStore}. */
export interface InMemoryNonceStoreOptions {
  /**
   * Most nonces held at once (default 100 000). Unexpired nonces are never evicted (that would
   * allow a replay); when the store is full of them, `consume` throws {@link NonceStoreError} and
   * the verifier fails closed with `NONCE_STORE_UNAVAILABLE`.
   */
  maxEntries?: number;
  /**
   * Time source in ms since the epoch (default `Date.now`). Give it the same clock as the verifier,
   * otherwise a nonce may be forgotten while the verifier still accepts its token.
   */
  clock?: () => number;
}

const SWEEP_INTERVAL_MS = 10_000;

/**
 * A nonce store in this process's memory: correct for a single adapter process only. Several
 * processes or hosts executing the same kind of token must share a store ({@link RemoteNonceStore},
 * or a database-backed {@link NonceStore}).
 *
 * Nonces are forgotten once their `expiresAtMs` passed (swept at most every 10 s, and whenever the
 * store is full); memory is bounded by `maxEntries`.
 *
 * @example
 * ```ts
 * import { InMemoryNonceStore, remoteJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
 *
 * const nonceStore = new InMemoryNonceStore();
 * const jwks = remoteJwks('https://authority.example.com/.well-known/authority/acme/jwks.json');
 * const expected = { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/api' };
 *
 * const first = await verifyAuthorityToken(token, { jwks, expected, nonceStore }); // valid: true
 * const replay = await verifyAuthorityToken(token, { jwks, expected, nonceStore });
 * // { valid: false, reason: 'NONCE_ALREADY_CONSUMED', ... }
 * ```
 */
export class InMemoryNonceStore implements NonceStore {
  readonly #expiries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #clock: () => number;
  #nextSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: InMemoryNonceStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError('InMemoryNonceStore: maxEntries must be a positive integer');
    }
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw new TypeError('InMemoryNonceStore: clock must be a function');
    }
    this.#maxEntries = maxEntries;
    this.#clock = options.clock ?? Date.now;
  }

  /** Number of nonces currently remembered (expired ones may linger until the next sweep). */
  get size(): number {
    return this.#expiries.size;
  }

  /**
   * Records `nonce` until `expiresAtMs`; `true` on first use, `false` on a replay.
   *
   * @example
   * ```ts
   * const store = new InMemoryNonceStore();
   * const context = { token, adapterId: 'external', targetSystem: 'acme/api' };
   * await store.consume('n-1', Date.now() + 300_000, context); // true
   * await store.consume('n-1', Date.now() + 300_000, context); // false
   * ```
   */
  async consume(nonce: string, expiresAtMs: number, _context?: NonceConsumeContext): Promise<boolean> {
    if (typeof nonce !== 'string' || nonce === '')
      throw new TypeError('consume: nonce must be a non-empty string');
    if (typeof expiresAtMs !== 'number' || Number.isNaN(expiresAtMs)) {
      throw new TypeError('consume: expiresAtMs must be a number');
    }
    const now = this.#clock();
    if (now >= this.#nextSweepAt || this.#expiries.size >= this.#maxEntries) this.#sweep(now);
    // Check and record happen in one synchronous step, so concurrent calls cannot both win.
    if (this.#expiries.has(nonce)) return false;
    if (this.#expiries.size >= this.#maxEntries) {
      throw new NonceStoreError(
        'unavailable',
        `in-memory nonce store is full (${this.#maxEntries} live nonces)`,
      );
    }
    this.#expiries.set(nonce, expiresAtMs);
    return true;
  }

  #sweep(now: number): void {
    this.#nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [nonce, expiresAt] of this.#expiries) {
      if (expiresAt <= now) this.#expiries.delete(nonce);
    }
  }
}

/** Options of {@link RemoteNonceStore}. */
export interface RemoteNonceStoreOptions {
  /** Base URL of the Authority Runtime service, e.g. `https://authority.example.com` (a `/v1` suffix is fine). */
  baseUrl: string;
  /** An API key with the permission `intent:token:consume`. */
  apiKey: string;
  /** The tenant, sent as `x-tenant-id`. */
  tenantId: string;
  /** The fetch implementation; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Timeout of one call, in ms (default 5 000). */
  timeoutMs?: number;
}

/**
 * A nonce store backed by the service: `POST {baseUrl}/authority/tokens/consume` with
 * `{token, adapterId, targetSystem}`, `Authorization: Bearer <apiKey>` and `x-tenant-id`. The
 * service verifies the token again and consumes its nonce atomically in its database, so any number
 * of adapter processes can share it.
 *
 * Answers are mapped as follows (fail closed):
 *
 * | Answer | Result |
 * |---|---|
 * | 200 `{valid: true}` | `true` (first use) |
 * | 200 `{valid: false, reason: 'NONCE_ALREADY_CONSUMED'}` | `false` (replay) |
 * | 200 `{valid: false, reason: <other>}` | throws `NonceStoreError('rejected')` with `remoteReason`; the verifier reports that reason when it is a known one (e.g. `TENANT_KILL_SWITCH`, `TOKEN_EXPIRED`), else `NONCE_STORE_UNAVAILABLE` |
 * | any other status or body, network error, timeout | throws `NonceStoreError('unavailable')`; the verifier reports `NONCE_STORE_UNAVAILABLE` |
 *
 * @example
 * ```ts
 * import { RemoteNonceStore, remoteJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
 *
 * const nonceStore = new RemoteNonceStore({
 *   baseUrl: 'https://authority.example.com',
 *   apiKey: process.env.AUTHORITY_API_KEY ?? '',
 *   tenantId: 'acme',
 * });
 * const result = await verifyAuthorityToken(token, {
 *   jwks: remoteJwks('https://authority.example.com/.well-known/authority/acme/jwks.json'),
 *   expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/api' },
 *   nonceStore,
 * });
 * ```
 */
export class RemoteNonceStore implements NonceStore {
  readonly #endpoint: URL;
  readonly #apiKey: string;
  readonly #tenantId: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: RemoteNonceStoreOptions) {
    if (!isRecord(options)) throw new TypeError('RemoteNonceStore: options are required');
    const { baseUrl, apiKey, tenantId } = options;
    for (const [name, value] of Object.entries({ baseUrl, apiKey, tenantId })) {
      if (typeof value !== 'string' || value === '') {
        throw new TypeError(`RemoteNonceStore: ${name} must be a non-empty string`);
      }
    }
    const base = new URL(baseUrl); // throws TypeError on a malformed URL
    base.pathname = `${base.pathname.replace(/\/+$/, '')}/authority/tokens/consume`;
    base.search = '';
    base.hash = '';
    this.#endpoint = base;
    this.#apiKey = apiKey;
    this.#tenantId = tenantId;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function')
      throw new TypeError('RemoteNonceStore: no fetch implementation available');
    this.#fetch = fetchImpl;
    const timeoutMs = options.timeoutMs ?? 5_000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new TypeError('RemoteNonceStore: timeoutMs must be a positive number');
    }
    this.#timeoutMs = timeoutMs;
  }

  /** The URL the store POSTs to. */
  get endpoint(): string {
    return this.#endpoint.href;
  }

  /**
   * Asks the service to verify the token and consume its nonce; see the class documentation for
   * how answers map. The `nonce` and `expiresAtMs` arguments are not sent: the service reads both
   * from the token itself (a `claims.nonce` in the answer must match `nonce`).
   *
   * @example
   * ```ts
   * const store = new RemoteNonceStore({ baseUrl, apiKey, tenantId: 'acme' });
   * await store.consume(claims.nonce, claims.exp * 1000, { token, adapterId: 'external', targetSystem: 'acme/api' });
   * // true the first time, false on a replay, throws NonceStoreError when the service cannot confirm
   * ```
   */
  async consume(nonce: string, _expiresAtMs: number, context: NonceConsumeContext): Promise<boolean> {
    let response: Response;
    try {
      response = await this.#fetch(this.#endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.#apiKey}`,
          'x-tenant-id': this.#tenantId,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({
          token: context.token,
          adapterId: context.adapterId,
          targetSystem: context.targetSystem,
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new NonceStoreError('unavailable', `nonce store unreachable: ${describe(error)}`, {
        cause: error,
      });
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new NonceStoreError('unavailable', `nonce store answered HTTP ${response.status} without JSON`, {
        cause: error,
      });
    }
    if (response.status !== 200 || !isRecord(body)) {
      throw new NonceStoreError('unavailable', `nonce store answered HTTP ${response.status}`);
    }
    if (body.valid === true) {
      if (isRecord(body.claims) && body.claims.nonce !== undefined && body.claims.nonce !== nonce) {
        throw new NonceStoreError('unavailable', 'nonce store confirmed a different nonce');
      }
      return true;
    }
    if (body.valid === false && typeof body.reason === 'string') {
      if (body.reason === 'NONCE_ALREADY_CONSUMED') return false;
      throw new NonceStoreError('rejected', `nonce store rejected the token: ${body.reason}`, {
        remoteReason: body.reason,
      });
    }
    throw new NonceStoreError('unavailable', 'nonce store answered an unexpected body');
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
