import type { Executor } from '../storage/database.js';

/** A claimed Idempotency-Key: the request it names and, once final, the answer it replays. */
export interface IdempotencyRecord {
  requestHash: string;
  /** Both null while the first request with the key is still running. */
  statusCode: number | null;
  response: string | null;
  /** When the key was claimed, or last taken over from a request that never finished. */
  createdAtMs: number;
  expiresAtMs: number;
}

/** The key of one record: per tenant and surface (`scope`). */
export interface IdempotencyKey {
  tenantId: string;
  scope: string;
  key: string;
}

/** The primary key's columns of a record, for `where`. */
function columnsOf(key: IdempotencyKey) {
  return { tenant_id: key.tenantId, scope: key.scope, key: key.key };
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
      .where((eb) => eb.and(columnsOf(key)))
      .executeTakeFirst();
    return row
      ? {
          requestHash: row.request_hash,
          statusCode: row.status_code,
          response: row.response,
          createdAtMs: row.created_at,
          expiresAtMs: row.expires_at,
        }
      : undefined;
  },

  /**
   * Takes over an open claim (no answer) made at `fromMs` by a request that never finished, as
   * made at `createdAtMs`; false when it was answered or taken over meanwhile.
   */
  async takeOver(db: Executor, key: IdempotencyKey, fromMs: number, createdAtMs: number): Promise<boolean> {
    const result = await db
      .updateTable('idempotency_keys')
      .set({ created_at: createdAtMs })
      .where((eb) => eb.and(columnsOf(key)))
      .where('created_at', '=', fromMs)
      .where('status_code', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Removes the record if it expired at `now` (a later claim may reuse the key). */
  async deleteExpired(db: Executor, key: IdempotencyKey, now: number): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where((eb) => eb.and(columnsOf(key)))
      .where('expires_at', '<=', now)
      .execute();
  },

  /**
   * Stores the answer (in the caller's transaction, so it commits with what it answers) if the
   * claim made at `claimedAtMs` still holds the key; false when another request took it over.
   */
  async complete(
    trx: Executor,
    key: IdempotencyKey,
    claimedAtMs: number,
    answer: { statusCode: number; body: string },
  ): Promise<boolean> {
    const result = await trx
      .updateTable('idempotency_keys')
      .set({ status_code: answer.statusCode, response: answer.body })
      .where((eb) => eb.and(columnsOf(key)))
      .where('created_at', '=', claimedAtMs)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Stores the answer unless one is stored already (an answer committed earlier wins). */
  async completeIfOpen(
    db: Executor,
    key: IdempotencyKey,
    claimedAtMs: number,
    answer: { statusCode: number; body: string },
  ): Promise<void> {
    await db
      .updateTable('idempotency_keys')
      .set({ status_code: answer.statusCode, response: answer.body })
      .where((eb) => eb.and(columnsOf(key)))
      .where('created_at', '=', claimedAtMs)
      .where('status_code', 'is', null)
      .execute();
  },

  /** Frees the claim made at `claimedAtMs` if it holds no answer yet (its request failed before deciding). */
  async release(db: Executor, key: IdempotencyKey, claimedAtMs: number): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where((eb) => eb.and(columnsOf(key)))
      .where('created_at', '=', claimedAtMs)
      .where('status_code', 'is', null)
      .execute();
  },
};
