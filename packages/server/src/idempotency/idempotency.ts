import { setTimeout as sleep } from 'node:timers/promises';
import { canonicalJson, sha256Hex } from '../crypto/canonical-json.js';
import { AppError } from '../errors/app-error.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Executor, Storage } from '../storage/database.js';
import { idempotencyRepository } from './idempotency-repository.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a claim may stay open (no answer stored) or an answer say its execution is still
 * running before a duplicate takes the key over: longer than any request runs when its instance
 * is alive (a connector runs at most CONNECTOR_TIMEOUT_MS, 60 s at most), so only a request whose
 * instance died (`kill -9`, a crash) leaves one behind. A request that is merely slower than this
 * loses the key: its answer is not stored and its decision does not commit (`complete` checks that
 * its claim still holds the key, in the decision's transaction).
 */
export const OPEN_CLAIM_LEASE_MS = 120_000;

/** A key this request claimed, and when: the claim it completes or releases. */
export interface ClaimedKey {
  key: string;
  claimedAt: number;
}

export type Claim =
  | { kind: 'new'; claimed: ClaimedKey }
  | { kind: 'replay'; statusCode: number; body: unknown };

/** A request's claim was taken over (it outlived OPEN_CLAIM_LEASE_MS): its outcome must not commit. */
export class ClaimLostError extends Error {
  constructor() {
    super('the Idempotency-Key was taken over by a retry after this request outlived its claim');
    this.name = 'ClaimLostError';
  }
}

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

/** SHA-256 of the JCS of a body: the same JSON, whatever its key order, is the same request. */
export function requestHash(body: unknown): string {
  return sha256Hex(canonicalJson(body ?? null));
}

/**
 * `Idempotency-Key` per tenant and surface (contract §4.6, §9): the first request claims the key
 * against the primary key; the same key and body within 24 h replays the stored status and body;
 * another body is 409; a duplicate arriving while the first is still running waits for it. A claim
 * left open by a request whose instance died is taken over after OPEN_CLAIM_LEASE_MS.
 */
export function createIdempotency(deps: { storage: Storage; clock: Clock; waitMs: number; pollMs?: number }) {
  const { storage, clock } = deps;
  const db = storage.db;
  const pollMs = deps.pollMs ?? 25;
  const stored = (response: StoredResponse) => ({
    statusCode: response.statusCode,
    body: JSON.stringify(response.body),
  });

  return {
    /**
     * Claims the key, or answers the stored response of the same request. `stillRunning` tells a
     * stored response that is not final yet (an intent committed and still executing through its
     * connector): a duplicate waits for it as for one in flight, and is 409 after the wait.
     */
    async claim(
      tenantId: string,
      scope: string,
      key: string,
      hash: string,
      stillRunning?: (body: unknown) => boolean,
    ): Promise<Claim> {
      const id = { tenantId, scope, key };
      const deadline = Date.now() + deps.waitMs;
      for (;;) {
        const now = clock();
        try {
          await idempotencyRepository.claim(db, id, {
            requestHash: hash,
            createdAtMs: now,
            expiresAtMs: now + IDEMPOTENCY_TTL_MS,
          });
          return { kind: 'new', claimed: { key, claimedAt: now } };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
        }
        const existing = await idempotencyRepository.get(db, id);
        if (!existing) continue;
        if (existing.expiresAtMs <= now) {
          await idempotencyRepository.deleteExpired(db, id, now);
          continue;
        }
        if (existing.requestHash !== hash) {
          throw new AppError(
            'CONFLICT',
            'This Idempotency-Key was used with a different request body, or by another credential',
          );
        }
        const abandoned = now - existing.createdAtMs >= OPEN_CLAIM_LEASE_MS;
        if (existing.statusCode !== null && existing.response !== null) {
          const body: unknown = JSON.parse(existing.response);
          // An execution still "pending" past the lease was cut short with its instance: the
          // decision stands and is replayed as it was committed.
          if (abandoned || !stillRunning?.(body))
            return { kind: 'replay', statusCode: existing.statusCode, body };
        } else if (abandoned) {
          if (await idempotencyRepository.takeOver(db, id, existing.createdAtMs, now)) {
            return { kind: 'new', claimed: { key, claimedAt: now } };
          }
          continue;
        }
        if (Date.now() >= deadline) {
          throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed');
        }
        await sleep(pollMs);
      }
    },

    /**
     * Stores the response in the caller's transaction, so it commits with the decision; throws
     * ClaimLostError (so nothing of the transaction commits) when a retry took the key over.
     */
    async complete(
      trx: Executor,
      tenantId: string,
      scope: string,
      claimed: ClaimedKey,
      response: StoredResponse,
    ) {
      const id = { tenantId, scope, key: claimed.key };
      if (!(await idempotencyRepository.complete(trx, id, claimed.claimedAt, stored(response)))) {
        throw new ClaimLostError();
      }
    },

    /** Stores the response unless one is stored already (a response committed earlier wins). */
    async completeIfOpen(tenantId: string, scope: string, claimed: ClaimedKey, response: StoredResponse) {
      const id = { tenantId, scope, key: claimed.key };
      await idempotencyRepository.completeIfOpen(db, id, claimed.claimedAt, stored(response));
    },

    /** Frees a claim whose request failed before deciding, so a retry can run. */
    async release(tenantId: string, scope: string, claimed: ClaimedKey): Promise<void> {
      await idempotencyRepository.release(db, { tenantId, scope, key: claimed.key }, claimed.claimedAt);
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
