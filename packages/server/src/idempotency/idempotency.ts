import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { canonicalJson, sha256Hex } from '../crypto/canonical-json.js';
import { AppError } from '../errors/app-error.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type Claim = { kind: 'new' } | { kind: 'replay'; statusCode: number; body: unknown };

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
 * another body is 409; a duplicate arriving while the first is still running waits for it.
 */
export function createIdempotency(deps: { storage: Storage; clock: Clock; waitMs: number; pollMs?: number }) {
  const { storage, clock } = deps;
  const db = storage.db;
  const pollMs = deps.pollMs ?? 25;

  async function read(tenantId: string, scope: string, key: string) {
    return db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  return {
    async claim(tenantId: string, scope: string, key: string, hash: string): Promise<Claim> {
      const deadline = Date.now() + deps.waitMs;
      for (;;) {
        const now = clock();
        try {
          await db
            .insertInto('idempotency_keys')
            .values({
              tenant_id: tenantId,
              scope,
              key,
              request_hash: hash,
              status_code: null,
              response: null,
              created_at: now,
              expires_at: now + IDEMPOTENCY_TTL_MS,
            })
            .execute();
          return { kind: 'new' };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
        }
        const existing = await read(tenantId, scope, key);
        if (!existing) continue;
        if (existing.expires_at <= now) {
          await db
            .deleteFrom('idempotency_keys')
            .where('tenant_id', '=', tenantId)
            .where('scope', '=', scope)
            .where('key', '=', key)
            .where('expires_at', '<=', now)
            .execute();
          continue;
        }
        if (existing.request_hash !== hash) {
          throw new AppError('CONFLICT', 'This Idempotency-Key was used with a different request body');
        }
        if (existing.status_code !== null && existing.response !== null) {
          return { kind: 'replay', statusCode: existing.status_code, body: JSON.parse(existing.response) };
        }
        if (Date.now() >= deadline) {
          throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed');
        }
        await sleep(pollMs);
      }
    },

    /** Stores the response in the caller's transaction, so it commits with the decision. */
    async complete(
      trx: Kysely<Database>,
      tenantId: string,
      scope: string,
      key: string,
      response: StoredResponse,
    ) {
      await trx
        .updateTable('idempotency_keys')
        .set({ status_code: response.statusCode, response: JSON.stringify(response.body) })
        .where('tenant_id', '=', tenantId)
        .where('scope', '=', scope)
        .where('key', '=', key)
        .execute();
    },

    /** Frees a claim whose request failed before deciding, so a retry can run. */
    async release(tenantId: string, scope: string, key: string): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('tenant_id', '=', tenantId)
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('status_code', 'is', null)
        .execute();
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
