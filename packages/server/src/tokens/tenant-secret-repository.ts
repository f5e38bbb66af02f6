import type { Executor } from '../storage/database.js';

/** A tenant secret as stored: its value sealed under the master key. */
export interface StoredSecret {
  id: string;
  sealed: string;
}

/**
 * `tenant_secrets`: per-tenant HMAC secrets by kind (evidence bundles, permission tokens). A
 * partial unique index admits one active secret per kind.
 */
export const tenantSecretRepository = {
  async active(db: Executor, tenantId: string, kind: string): Promise<StoredSecret | undefined> {
    const row = await db
      .selectFrom('tenant_secrets')
      .select(['id', 'secret'])
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return row ? { id: row.id, sealed: row.secret } : undefined;
  },

  /** A secret by id, active or retired. */
  async get(db: Executor, tenantId: string, id: string): Promise<StoredSecret | undefined> {
    const row = await db
      .selectFrom('tenant_secrets')
      .select(['id', 'secret'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { id: row.id, sealed: row.secret } : undefined;
  },

  /** A new active secret; fails with a unique violation while the kind has an active one. */
  async insertActive(
    db: Executor,
    secret: { tenantId: string; id: string; kind: string; sealed: string; createdAtMs: number },
  ): Promise<void> {
    await db
      .insertInto('tenant_secrets')
      .values({
        tenant_id: secret.tenantId,
        id: secret.id,
        kind: secret.kind,
        secret: secret.sealed,
        status: 'active',
        created_at: secret.createdAtMs,
      })
      .execute();
  },

  /** Retires the kind's active secret (a rotation inserts the next one in the same transaction). */
  async retireActive(trx: Executor, tenantId: string, kind: string): Promise<void> {
    await trx
      .updateTable('tenant_secrets')
      .set({ status: 'retired' })
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('status', '=', 'active')
      .execute();
  },
};
