import type { Executor } from '../storage/database.js';

/** A claimed Idempotency-Key: the request it names and, once final, the answer it replays. */
export interface IdempotencyRecord {
  requestHash: string;
  /** Both null while the first request with the key is still running. */
  statusCode: number | null;
  response: string | null;
  expiresAtMs: number;
}

/** The key of one record: per tenant and surface (`scope`). */
export interface IdempotencyKey {
  tenantId: string;
  scope: string;
  key: string;
}

/** `idempotency_keys`: the primary key (tenant, scope, key) makes the first claim win. */
export const idempotencyRepository = {
  /** Claims the key; fails with a unique violation when it is claimed already. */
  async claim(
    db: Executor,
    key: IdempotencyKey,
    claim: { requestHash: string; createdAtMs: number; expiresAtMs: number },
  ): Promise<void> {
    await db
      .insertInto('idempotency_keys')
      .values({
        tenant_id: key.tenantId,
        scope: key.scope,
        key: key.key,
        request_hash: claim.requestHash,
        status_code: null,
        response: null,
        created_at: claim.createdAtMs,
        expires_at: claim.expiresAtMs,
      })
      .execute();
  },

  async get(db: Executor, key: IdempotencyKey): Promise<IdempotencyRecord | undefined> {
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('tenant_id', '=', key.tenantId)
      .where('scope', '=', key.scope)
      .where('key', '=', key.key)
      .executeTakeFirst();
    return row
      ? {
          requestHash: row.request_hash,
          statusCode: row.status_code,
          response: row.response,
          expiresAtMs: row.expires_at,
        }
      : undefined;
  },

  /** Removes the record if it expired at `now` (a later claim may reuse the key). */
  async deleteExpired(db: Executor, key: IdempotencyKey, now: number): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', key.tenantId)
      .where('scope', '=', key.scope)
      .where('key', '=', key.key)
      .where('expires_at', '<=', now)
      .execute();
  },

  /** Stores the answer (in the caller's transaction, so it commits with what it answers). */
  async complete(
    trx: Executor,
    key: IdempotencyKey,
    answer: { statusCode: number; body: string },
  ): Promise<void> {
    await trx
      .updateTable('idempotency_keys')
      .set({ status_code: answer.statusCode, response: answer.body })
      .where('tenant_id', '=', key.tenantId)
      .where('scope', '=', key.scope)
      .where('key', '=', key.key)
      .execute();
  },

  /** Stores the answer unless one is stored already (an answer committed earlier wins). */
  async completeIfOpen(
    db: Executor,
    key: IdempotencyKey,
    answer: { statusCode: number; body: string },
  ): Promise<void> {
    await db
      .updateTable('idempotency_keys')
      .set({ status_code: answer.statusCode, response: answer.body })
      .where('tenant_id', '=', key.tenantId)
      .where('scope', '=', key.scope)
      .where('key', '=', key.key)
      .where('status_code', 'is', null)
      .execute();
  },

  /** Frees a claim that holds no answer yet (its request failed before deciding). */
  async release(db: Executor, key: IdempotencyKey): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', key.tenantId)
      .where('scope', '=', key.scope)
      .where('key', '=', key.key)
      .where('status_code', 'is', null)
      .execute();
  },
};
