import { callService, EdgeServiceError } from './edge-http.js';
import type { EdgeVerificationReason } from './edge-reasons.js';
import { EdgeReporter, type EdgeReportFlush } from './edge-reporter.js';
import { type EdgeSettings, type EdgeVerifierOptions, edgeSettings } from './edge-verifier-options.js';
import {
  type CompactJwsParts,
  describe,
  type ResolvedKey,
  resolveKey,
  splitCompactJws,
  utf8,
  verifyCompactJws,
} from './jws.js';
import { isRecord, keyAlgorithm } from './keys.js';
import {
  decodePhysicalClaims,
  EDGE_VERIFIER_AUDIENCE,
  MAX_PHYSICAL_TOKEN_LIFETIME_MS,
  type PhysicalTokenClaims,
} from './physical-token-claims.js';
import { parseRevocationPage, RevocationList } from './revocation-list.js';
import { MAX_TOKEN_LENGTH } from './verify.js';
import type { BatchVerificationReport } from './wire/physical.js';

/** Options of one {@link EdgeVerifier.verify} call. */
export interface EdgeVerifyOptions {
  /** The actor the token must be bound to; defaults to the verifier's `actorIdentity`. */
  actorIdentity?: string;
}

/** A token that passed every check. */
export interface EdgeTokenAccepted {
  valid: true;
  claims: PhysicalTokenClaims;
}

/**
 * A rejected token: `reason` is stable and machine-readable, `detail` is for logs only. `jti` is
 * present when the signature verified, so the id is the service's and not an attacker's.
 */
export interface EdgeTokenRejected {
  valid: false;
  reason: EdgeVerificationReason;
  detail: string;
  jti?: string;
}

/** The outcome of {@link EdgeVerifier.verify}. */
export type EdgeVerification = EdgeTokenAccepted | EdgeTokenRejected;

/** What one successful {@link EdgeVerifier.sync} did. */
export interface EdgeSyncResult {
  /** Local time at which the sync started: the freshness the offline window counts from. */
  syncedAtMs: number;
  /** Calls made to the revocations route. */
  pages: number;
  /** Revocations received. */
  revocationsReceived: number;
  /** Revocations held after forgetting those whose tokens have expired anyway. */
  revocationsHeld: number;
  /** The `since` of the next sync. */
  asOfMs: number;
}

/** A snapshot of an {@link EdgeVerifier}'s state, for health checks and metrics. */
export interface EdgeVerifierStatus {
  /** Whether the background timers run. */
  running: boolean;
  /** When the last successful sync started (local clock), or `null` before the first one. */
  lastSyncAtMs: number | null;
  /** The message of the last failed sync, `null` after a successful one. */
  lastSyncError: string | null;
  /** Whether `verify` currently fails closed with `REVOCATIONS_STALE`. */
  revocationsStale: boolean;
  revocationsHeld: number;
  /** The `since` of the next sync. */
  revocationsAsOfMs: number;
  reportsQueued: number;
  reportsDelivered: number;
  reportsRefused: number;
  /** Reports lost: dropped from a full queue, or in a batch the service refused as a whole (4xx). */
  reportsDropped: number;
}

/** A revocation is kept this much longer than the longest token lifetime plus the skew. */
const REVOCATION_MARGIN_MS = 60_000;

/**
 * Verifies physical authority tokens at the edge (a robot controller, a PLC gateway) without a
 * round trip per token, and reports each verification back to the service's audit chain.
 *
 * - `sync()` loads the physical signer's JWKS (`GET /.well-known/jwks.json`) and pulls revocations
 *   incrementally (`GET /v1/physical/revocations?since=`, page after page until none is left).
 * - `verify(token)` is offline: signature (RS256 under the kid's key; an unknown kid re-fetches the
 *   JWKS, rate limited), claims, expiry, revocation, actor and tenant. If the last successful sync
 *   started more than `offlineWindowMs` ago (or none happened yet), every token is rejected with
 *   `REVOCATIONS_STALE`: fail closed.
 * - Results with a verified `jti` of this tenant are queued and sent in batches to
 *   `POST /v1/physical/verifications` by `flushReports()`; a failed batch is retried later, the
 *   queue is bounded and drops its oldest reports first.
 * - `start()` runs `sync` and `flushReports` on unref'd timers; `stop()` ends them.
 *
 * `verify` never throws because of a bad token; it throws a `TypeError` only for misuse (no actor
 * given anywhere).
 *
 * @example
 * ```ts
 * import { EdgeVerifier } from '@authority-runtime/sdk';
 *
 * const verifier = new EdgeVerifier({
 *   baseUrl: 'https://authority.example.com',
 *   apiKey: process.env.AUTHORITY_EDGE_KEY ?? '',
 *   tenantId: 'acme',
 *   edgeNodeId: 'cell-4-controller',
 *   actorIdentity: 'devid:arm-7',
 * });
 * await verifier.sync(); // fail fast at boot if the service is unreachable
 * verifier.start();
 *
 * const result = await verifier.verify(token);
 * if (!result.valid) return applySafeDefault(result.reason);
 * move(result.claims.service.oiCode);
 * ```
 */
export class EdgeVerifier {
  readonly #s: EdgeSettings;
  readonly #revocations = new RevocationList();
  readonly #reporter: EdgeReporter;
  #lastSyncAtMs: number | undefined;
  #lastSyncError: string | undefined;
  #syncing: Promise<EdgeSyncResult> | undefined;
  #running = false;
  #syncTimer: NodeJS.Timeout | undefined;
  #reportTimer: NodeJS.Timeout | undefined;

  /** Throws a `TypeError` for missing or ill-typed options; see {@link EdgeVerifierOptions}. */
  constructor(options: EdgeVerifierOptions) {
    this.#s = edgeSettings(options);
    const { call, endpoints, reportBatchSize, maxQueuedReports } = this.#s;
    this.#reporter = new EdgeReporter(call, endpoints.verifications, reportBatchSize, maxQueuedReports);
  }

  /**
   * Loads the JWKS (unless keys are pinned) and pulls every revocation since the last sync.
   * Concurrent calls share one sync. Rejects with {@link EdgeServiceError} (or `KeySourceError`
   * when no JWKS could ever be loaded); pages received before a failure are kept.
   *
   * @example
   * ```ts
   * const { revocationsReceived, asOfMs } = await verifier.sync();
   * ```
   */
  sync(): Promise<EdgeSyncResult> {
    this.#syncing ??= this.#sync().finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  async #sync(): Promise<EdgeSyncResult> {
    const { call, endpoints, remoteKeys, clock } = this.#s;
    const startedAt = clock();
    let pages = 0;
    let received = 0;
    try {
      await remoteKeys?.ensureLoaded();
      for (;;) {
        const since = this.#revocations.since;
        const url = new URL(endpoints.revocations);
        url.searchParams.set('since', String(since));
        const page = parseRevocationPage(await callService(call, 'GET', url));
        if (typeof page === 'string')
          throw new EdgeServiceError(`revocations: unexpected answer: ${page}`, 200);
        pages += 1;
        received += page.revocations.length;
        this.#revocations.apply(page);
        if (!page.hasMore) break;
        if (page.asOfMs <= since) throw new EdgeServiceError('revocations: asOfMs did not advance', 200);
      }
    } catch (error) {
      this.#lastSyncError = describe(error);
      throw error;
    }
    this.#lastSyncAtMs = Math.max(this.#lastSyncAtMs ?? startedAt, startedAt);
    this.#lastSyncError = undefined;
    const retention = MAX_PHYSICAL_TOKEN_LIFETIME_MS + this.#s.clockSkewMs + REVOCATION_MARGIN_MS;
    this.#revocations.prune(clock(), retention);
    return {
      syncedAtMs: startedAt,
      pages,
      revocationsReceived: received,
      revocationsHeld: this.#revocations.size,
      asOfMs: this.#revocations.since,
    };
  }

  /**
   * Verifies a physical authority token; see {@link EDGE_VERIFICATION_REASONS} for the checks, in
   * order. Needs no network unless the kid is unknown (one JWKS re-fetch, rate limited).
   *
   * @example
   * ```ts
   * const result = await verifier.verify(token, { actorIdentity: 'devid:arm-7' });
   * if (!result.valid) console.warn(result.reason); // e.g. 'TOKEN_REVOKED'
   * ```
   */
  async verify(token: unknown, options: EdgeVerifyOptions = {}): Promise<EdgeVerification> {
    const actor = (isRecord(options) ? options.actorIdentity : undefined) ?? this.#s.actorIdentity;
    if (typeof actor !== 'string' || actor === '') {
      throw new TypeError('EdgeVerifier.verify: no actorIdentity given, neither here nor in the options');
    }
    const now = this.#s.clock();
    const { result, claims } = await this.#check(token, actor, now);
    if (claims !== undefined && claims.service.tenantId === this.#s.tenantId) {
      this.#enqueue({
        jti: claims.jti,
        edgeNodeId: this.#s.edgeNodeId,
        result: result.valid ? 'accepted' : 'rejected',
        ...(result.valid ? {} : { reason: result.reason }),
        atMs: now,
      });
    }
    return result;
  }

  /**
   * Every check, in the order of {@link EDGE_VERIFICATION_REASONS}. The only wait is the key
   * look-up; the rest is synchronous, so a token costs one promise chain, not one per step.
   */
  #check(token: unknown, actor: string, now: number): Checked | Promise<Checked> {
    const s = this.#s;
    const age = this.#lastSyncAtMs === undefined ? Number.POSITIVE_INFINITY : now - this.#lastSyncAtMs;
    if (!(age >= 0 && age <= s.offlineWindowMs)) {
      const detail = this.#lastSyncAtMs === undefined ? 'no successful sync yet' : `last sync ${age} ms ago`;
      return { result: reject('REVOCATIONS_STALE', detail) };
    }
    const parts = splitCompactJws(token, MAX_TOKEN_LENGTH);
    if (typeof parts === 'string') return { result: reject('TOKEN_MALFORMED', parts) };
    if (parts.header.typ !== 'JWT') return { result: reject('TOKEN_MALFORMED', 'header typ is not JWT') };
    return resolveKey(s.keys, parts.header.kid).then((found) => this.#checkSigned(parts, found, actor, now));
  }

  #checkSigned(parts: CompactJwsParts, found: ResolvedKey, actor: string, now: number): Checked {
    const s = this.#s;
    if ('unavailable' in found) return { result: reject('KEY_SOURCE_UNAVAILABLE', found.unavailable) };
    if ('unknown' in found) return { result: reject('KID_MISMATCH', found.unknown) };
    const bound = keyAlgorithm(found.jwk);
    if (!('alg' in bound) || bound.alg !== 'RS256') {
      return { result: reject('SIGNATURE_VERIFICATION_FAILED', 'the key is not an RS256 key') };
    }
    const verified = verifyCompactJws(parts, found.jwk);
    if ('problem' in verified) return { result: reject('SIGNATURE_VERIFICATION_FAILED', verified.problem) };
    let payload: unknown;
    try {
      payload = JSON.parse(utf8.decode(verified.payload));
    } catch {
      return { result: reject('TOKEN_MALFORMED', 'the payload is not JSON') };
    }
    const claims = decodePhysicalClaims(payload);
    if (typeof claims === 'string') return { result: reject('TOKEN_MALFORMED', claims) };
    if (claims.aud !== EDGE_VERIFIER_AUDIENCE) {
      return { result: reject('SIGNATURE_VERIFICATION_FAILED', `aud is not ${EDGE_VERIFIER_AUDIENCE}`) };
    }
    if (claims.iss !== s.issuer) {
      return { result: reject('SIGNATURE_VERIFICATION_FAILED', 'iss is not the configured issuer') };
    }
    // From here on the jti is the service's own: results are reportable.
    const { service } = claims;
    if (now >= service.expiresAtMs + s.clockSkewMs)
      return failed(claims, 'TOKEN_EXPIRED', 'the token expired');
    if (this.#revocations.has(claims.jti)) return failed(claims, 'TOKEN_REVOKED', 'the token was revoked');
    const notBeforeMs = Math.max(service.issuedAtMs, claims.iat * 1000, (claims.nbf ?? claims.iat) * 1000);
    if (notBeforeMs > now + s.clockSkewMs) {
      return failed(claims, 'TOKEN_NOT_YET_VALID', 'the token is not valid yet (issuedAtMs, iat or nbf)');
    }
    if (service.actorIdentity !== actor)
      return failed(claims, 'TOKEN_ACTOR_MISMATCH', 'the token is for another actor');
    if (service.tenantId !== s.tenantId)
      return failed(claims, 'TOKEN_TENANT_MISMATCH', 'the token is of another tenant');
    return { result: { valid: true, claims }, claims };
  }

  #enqueue(report: BatchVerificationReport): void {
    this.#reporter.push(report);
    if (this.#running && this.#reporter.flushing === undefined && this.#reporter.batchReady) {
      this.#scheduleReports(0);
    }
  }

  /**
   * Sends the queued reports, oldest first, in batches of `reportBatchSize` to
   * `POST /v1/physical/verifications`, until the reports queued at the start are sent. Concurrent
   * calls share one flush. On a failure it stops and rejects with {@link EdgeServiceError}: the
   * failed batch goes back to the front of the queue, unless the service refused it as a whole with
   * 400, 404, 409, 413, 415 or 422 (a retry would be refused again), in which case it is dropped and
   * counted in `reportsDropped`.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', async () => {
   *   await verifier.stop();
   *   await verifier.flushReports().catch(() => undefined);
   * });
   * ```
   */
  flushReports(): Promise<EdgeReportFlush> {
    return this.#reporter.flush();
  }

  /**
   * Starts the background work: a sync now and then every `syncIntervalMs`, a report flush every
   * `reportIntervalMs` (sooner when a full batch is waiting). Timers are unref'd, so they never keep
   * the process alive. Errors go to `onError`. Calling it twice does nothing.
   *
   * @example
   * ```ts
   * verifier.start();
   * ```
   */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#scheduleSync(0);
    this.#scheduleReports(this.#s.reportIntervalMs);
  }

  /**
   * Stops the background work and waits for a sync or flush in progress to settle. Queued reports
   * stay queued: call {@link EdgeVerifier.flushReports} to send them.
   *
   * @example
   * ```ts
   * await verifier.stop();
   * ```
   */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#syncTimer);
    clearTimeout(this.#reportTimer);
    await Promise.allSettled([this.#syncing, this.#reporter.flushing]);
  }

  /**
   * The verifier's state, for health checks and metrics.
   *
   * @example
   * ```ts
   * if (verifier.status().revocationsStale) reportUnhealthy();
   * ```
   */
  status(): EdgeVerifierStatus {
    const now = this.#s.clock();
    const last = this.#lastSyncAtMs;
    const reports = this.#reporter.counters();
    return {
      running: this.#running,
      lastSyncAtMs: last ?? null,
      lastSyncError: this.#lastSyncError ?? null,
      revocationsStale: last === undefined || !(now - last >= 0 && now - last <= this.#s.offlineWindowMs),
      revocationsHeld: this.#revocations.size,
      revocationsAsOfMs: this.#revocations.since,
      reportsQueued: this.#reporter.queued,
      reportsDelivered: reports.delivered,
      reportsRefused: reports.refused,
      reportsDropped: reports.dropped,
    };
  }

  #scheduleSync(delayMs: number): void {
    clearTimeout(this.#syncTimer);
    this.#syncTimer = setTimeout(() => {
      this.sync()
        .catch((error: unknown) => this.#report(error, 'sync'))
        .finally(() => {
          if (this.#running) this.#scheduleSync(this.#s.syncIntervalMs);
        });
    }, delayMs);
    this.#syncTimer.unref();
  }

  #scheduleReports(delayMs: number): void {
    clearTimeout(this.#reportTimer);
    this.#reportTimer = setTimeout(() => {
      this.flushReports()
        .catch((error: unknown) => this.#report(error, 'report'))
        .finally(() => {
          if (this.#running) this.#scheduleReports(this.#s.reportIntervalMs);
        });
    }, delayMs);
    this.#reportTimer.unref();
  }

  #report(error: unknown, task: 'sync' | 'report'): void {
    try {
      this.#s.onError(error instanceof Error ? error : new Error(String(error)), task);
    } catch {
      // A throwing handler must not become an unhandled rejection of a timer.
    }
  }
}

/** A verification's outcome, with the claims once the signature, audience and issuer verified. */
interface Checked {
  result: EdgeVerification;
  claims?: PhysicalTokenClaims;
}

/** A rejection of a token whose signature verified: its jti is reportable. */
function failed(claims: PhysicalTokenClaims, reason: EdgeVerificationReason, detail: string): Checked {
  return { result: reject(reason, detail, claims.jti), claims };
}

function reject(reason: EdgeVerificationReason, detail: string, jti?: string): EdgeTokenRejected {
  return jti === undefined ? { valid: false, reason, detail } : { valid: false, reason, detail, jti };
}
