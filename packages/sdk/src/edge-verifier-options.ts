import { type EdgeCallContext, type EdgeEndpoints, edgeEndpoints } from './edge-http.js';
import {
  type KeySource,
  type PinnedKeys,
  pinnedKeySource,
  type RemoteKeySource,
  remoteJwks,
} from './jwks.js';
import { isRecord } from './keys.js';

/** Options of {@link EdgeVerifier}. Durations are in milliseconds. */
export interface EdgeVerifierOptions {
  /** Base URL of the service, e.g. `https://authority.example.com` (a trailing `/v1` is fine). */
  baseUrl: string;
  /**
   * An API key of the tenant with `physical:revocations:read` and `physical:audit:report` (the
   * `edge` role has both). Sent as `Authorization: Bearer`, never to another origin, never logged.
   */
  apiKey: string;
  /** The tenant: sent as `x-tenant-id`, and every token's `service.tenantId` must equal it. */
  tenantId: string;
  /** This verifier's name in the audit entries' `verifications` (e.g. the robot controller's id). */
  edgeNodeId: string;
  /**
   * The actor tokens must be bound to (`service.actorIdentity`, also `sub`), e.g. the robot's
   * DevID. Optional here when every `verify` call names the actor itself.
   */
  actorIdentity?: string;
  /**
   * Pinned physical signing keys (a `{keys}` set or a key source) instead of fetching
   * `{baseUrl}/.well-known/jwks.json`. With pinned keys, `sync()` pulls only revocations.
   */
  jwks?: PinnedKeys;
  /**
   * The `iss` a token must carry exactly (else `SIGNATURE_VERIFICATION_FAILED`); default the
   * service's base address as `baseUrl` names it (origin and path, without a trailing `/` or
   * `/v1`): the service writes its `PUBLIC_BASE_URL` there (contract §9). Set it when the edge
   * reaches the service by another address than the one the service calls itself.
   */
  issuer?: string;
  /** How long verification keeps working without a successful sync (default 30 000). */
  offlineWindowMs?: number;
  /** Tolerated clock difference with the service when checking expiry (default 250, at most 60 000). */
  clockSkewMs?: number;
  /** Pause between background syncs after `start()` (default a third of `offlineWindowMs`). */
  syncIntervalMs?: number;
  /** Minimum time between two JWKS re-fetches on unknown kids, or after a failed fetch (default 5 000). */
  jwksMinRefetchIntervalMs?: number;
  /** Age after which the cached JWKS is fetched again (default 300 000). */
  jwksMaxAgeMs?: number;
  /** Most reports per `POST /v1/physical/verifications` (default 100, at most 500). */
  reportBatchSize?: number;
  /** Pause between background report flushes after `start()` (default 5 000). */
  reportIntervalMs?: number;
  /** Most reports held while the service is unreachable; the oldest are dropped first (default 10 000). */
  maxQueuedReports?: number;
  /** Timeout of one call to the service (default 5 000). */
  timeoutMs?: number;
  /** Time source in ms since the epoch (default `Date.now`). */
  clock?: () => number;
  /** The fetch implementation (default the global `fetch`). */
  fetch?: typeof fetch;
  /** Called with the errors of background syncs and flushes (after `start()`); default: ignored. */
  onError?: (error: Error, task: 'sync' | 'report') => void;
}

/** @internal The validated settings of an {@link EdgeVerifier}. */
export interface EdgeSettings {
  endpoints: EdgeEndpoints;
  call: EdgeCallContext;
  tenantId: string;
  edgeNodeId: string;
  actorIdentity: string | undefined;
  /** The key source, and whether `sync()` must load it (a remote JWKS). */
  keys: KeySource;
  remoteKeys: RemoteKeySource | undefined;
  issuer: string;
  offlineWindowMs: number;
  clockSkewMs: number;
  syncIntervalMs: number;
  reportBatchSize: number;
  reportIntervalMs: number;
  maxQueuedReports: number;
  clock: () => number;
  onError: (error: Error, task: 'sync' | 'report') => void;
}

/** Largest batch the service's batch route takes (document 03, section 9). */
export const MAX_REPORT_BATCH_SIZE = 500;

/**
 * @internal
 * Validates {@link EdgeVerifierOptions} and fills in the defaults. Throws a `TypeError` for
 * programmer misuse (a missing or ill-typed option, a sync interval that could never keep the
 * verifier inside its offline window).
 *
 * @example
 * ```ts
 * const settings = edgeSettings({ baseUrl, apiKey, tenantId: 'acme', edgeNodeId: 'cell-4' });
 * settings.offlineWindowMs; // 30000
 * ```
 */
export function edgeSettings(options: EdgeVerifierOptions): EdgeSettings {
  if (!isRecord(options)) throw new TypeError('EdgeVerifier: options are required');
  const { baseUrl, apiKey, tenantId, edgeNodeId } = options;
  for (const [name, value] of Object.entries({ baseUrl, apiKey, tenantId, edgeNodeId })) {
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`EdgeVerifier: ${name} must be a non-empty string`);
    }
  }
  for (const [name, value] of Object.entries({
    actorIdentity: options.actorIdentity,
    issuer: options.issuer,
  })) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw new TypeError(`EdgeVerifier: ${name} must be a non-empty string when given`);
    }
  }
  const clock = options.clock ?? Date.now;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof clock !== 'function') throw new TypeError('EdgeVerifier: clock must be a function');
  if (typeof fetchImpl !== 'function') throw new TypeError('EdgeVerifier: no fetch implementation available');
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new TypeError('EdgeVerifier: onError must be a function');
  }
  const offlineWindowMs = duration(options.offlineWindowMs, 30_000, 'offlineWindowMs', 2);
  const syncIntervalMs = duration(
    options.syncIntervalMs,
    Math.max(1, Math.floor(offlineWindowMs / 3)),
    'syncIntervalMs',
    1,
    MAX_TIMER_MS,
  );
  if (syncIntervalMs >= offlineWindowMs) {
    throw new TypeError('EdgeVerifier: syncIntervalMs must be shorter than offlineWindowMs');
  }
  const timeoutMs = duration(options.timeoutMs, 5_000, 'timeoutMs', 1);
  const endpoints = edgeEndpoints(baseUrl as string);
  let keys: KeySource;
  let remoteKeys: RemoteKeySource | undefined;
  if (options.jwks === undefined) {
    remoteKeys = remoteJwks(endpoints.jwks, {
      fetch: fetchImpl,
      clock,
      timeoutMs,
      minRefetchIntervalMs: duration(options.jwksMinRefetchIntervalMs, 5_000, 'jwksMinRefetchIntervalMs', 0),
      maxAgeMs: duration(options.jwksMaxAgeMs, 300_000, 'jwksMaxAgeMs', 0),
    });
    keys = remoteKeys;
  } else {
    keys = pinnedKeySource(options.jwks, 'EdgeVerifier');
  }
  const reportBatchSize = duration(options.reportBatchSize, 100, 'reportBatchSize', 1);
  if (reportBatchSize > MAX_REPORT_BATCH_SIZE) {
    throw new TypeError(`EdgeVerifier: reportBatchSize must be at most ${MAX_REPORT_BATCH_SIZE}`);
  }
  const clockSkewMs = duration(options.clockSkewMs, 250, 'clockSkewMs', 0);
  if (clockSkewMs > 60_000) throw new TypeError('EdgeVerifier: clockSkewMs must be at most 60000');
  return {
    endpoints,
    call: { fetch: fetchImpl, apiKey: apiKey as string, tenantId: tenantId as string, timeoutMs },
    tenantId: tenantId as string,
    edgeNodeId: edgeNodeId as string,
    actorIdentity: options.actorIdentity,
    keys,
    remoteKeys,
    issuer: options.issuer ?? endpoints.issuer,
    offlineWindowMs,
    clockSkewMs,
    syncIntervalMs,
    reportBatchSize,
    reportIntervalMs: duration(options.reportIntervalMs, 5_000, 'reportIntervalMs', 1, MAX_TIMER_MS),
    maxQueuedReports: duration(options.maxQueuedReports, 10_000, 'maxQueuedReports', 1),
    clock,
    onError: options.onError ?? (() => undefined),
  };
}

/** Longest delay `setTimeout` honours; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** An integer option between `min` and `max`, or the default. */
function duration(
  value: number | undefined,
  fallback: number,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`EdgeVerifier: ${name} must be an integer between ${min} and ${max}`);
  }
  return value;
}
