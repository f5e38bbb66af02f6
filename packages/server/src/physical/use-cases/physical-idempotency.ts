/**
 * `Idempotency-Key` on the physical surface (contract §9), on top of the intent surface's store
 * (`intent/idempotency.ts`) under the scope `physical`:
 *
 * - keys are 1..255 visible ASCII characters (else 400), scoped to the tenant;
 * - the stored request hash covers the principal, the route and the canonical body, so one key
 *   names one request of one caller: the same key with another body, on another route or from
 *   another credential is 409 `conflict` (never the first caller's answer, which may hold a token);
 * - only final outcomes are stored, for 24 h: 2xx, 400, 422 and 423. Anything else (403, 404, 409,
 *   429, 5xx) releases the key so that a retry runs again;
 * - a duplicate arriving while the first is in flight waits for it, or gets 409 after
 *   `IDEMPOTENCY_WAIT_MS`.
 *
 * A handler that changes state stores its outcome with `scope.complete(trx, outcome)` inside its
 * own transaction, so the outcome commits with the change or not at all; otherwise `run` stores it
 * after the handler returns (or throws a final error).
 */
import { AppError, errorBody as envelopeOf, validationError } from '../../errors/app-error.js';
import { type Idempotency, requestHash, type StoredResponse } from '../../idempotency/idempotency.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import type { Executor } from '../../storage/database.js';

export const PHYSICAL_IDEMPOTENCY_SCOPE = 'physical';

/** Statuses whose answer is final: stored and replayed. */
const FINAL_STATUSES: ReadonlySet<number> = new Set([400, 422, 423]);
export const isFinalStatus = (status: number) =>
  (status >= 200 && status < 300) || FINAL_STATUSES.has(status);

export interface IdempotentRequest {
  tenantId: string;
  /** The credential (API key or console user) making the request; part of the request hash. */
  principalId: string;
  /** The `Idempotency-Key` header as received (undefined: none). */
  key: string | string[] | undefined;
  /** The route, e.g. `POST /physical/snapshots`; part of the request hash. */
  route: string;
  body: unknown;
  /** The request id, written into a stored error envelope as the live answer carries it. */
  requestId: string;
}

export interface IdempotencyScope {
  /** Stores the final outcome in the caller's transaction; a no-op for a request without a key. */
  complete(trx: Executor, outcome: StoredResponse): Promise<void>;
  /** The physical error envelope of an AppError, exactly as the error handler renders it. */
  errorBody(error: AppError): unknown;
}

export interface IdempotentOutcome extends StoredResponse {
  /** True when the outcome is a stored answer to an earlier request with the same key. */
  replayed: boolean;
}

export interface PhysicalIdempotency {
  /**
   * Runs `work` at most once per (tenant, key) within 24 h and returns its outcome, or replays the
   * stored outcome. Without a key, just runs `work`. A malformed key is 400 `validation_error`.
   */
  run(
    request: IdempotentRequest,
    work: (scope: IdempotencyScope) => Promise<StoredResponse>,
  ): Promise<IdempotentOutcome>;
}

export function createPhysicalIdempotency(deps: { idempotency: Idempotency }): PhysicalIdempotency {
  const { idempotency } = deps;
  return {
    async run(request, work) {
      const issues = checkIdempotencyKey(request.key);
      if (issues.length > 0) throw validationError(issues);
      const key = typeof request.key === 'string' ? request.key : undefined;
      const errorBody = (error: AppError) => envelopeOf(error, request.requestId, true);
      if (key === undefined) {
        const outcome = await work({ complete: async () => {}, errorBody });
        return { ...outcome, replayed: false };
      }
      const { tenantId } = request;
      const claim = await idempotency.claim(
        tenantId,
        PHYSICAL_IDEMPOTENCY_SCOPE,
        key,
        requestHash({ principalId: request.principalId, route: request.route, body: request.body }),
      );
      if (claim.kind === 'replay') return { statusCode: claim.statusCode, body: claim.body, replayed: true };
      const { claimed } = claim;

      let completed = false;
      const scope: IdempotencyScope = {
        async complete(trx, outcome) {
          if (!isFinalStatus(outcome.statusCode)) return;
          await idempotency.complete(trx, tenantId, PHYSICAL_IDEMPOTENCY_SCOPE, claimed, outcome);
          completed = true;
        },
        errorBody,
      };
      const release = () =>
        idempotency.release(tenantId, PHYSICAL_IDEMPOTENCY_SCOPE, claimed).catch(() => {});
      /** Stores an answer unless one is stored already (a handler's committed answer wins). */
      const storeIfOpen = (outcome: StoredResponse) =>
        idempotency.completeIfOpen(tenantId, PHYSICAL_IDEMPOTENCY_SCOPE, claimed, outcome);
      let outcome: StoredResponse;
      try {
        outcome = await work(scope);
      } catch (error) {
        // A final refusal is stored, unless the handler's transaction committed one; anything else
        // frees the key. Whether or not that transaction committed, the claim never stays open.
        if (error instanceof AppError && isFinalStatus(error.status)) {
          await storeIfOpen({ statusCode: error.status, body: errorBody(error) }).catch(release);
        } else {
          await release();
        }
        throw error;
      }
      if (!completed) {
        if (isFinalStatus(outcome.statusCode)) await storeIfOpen(outcome);
        else await release();
      }
      return { ...outcome, replayed: false };
    },
  };
}
