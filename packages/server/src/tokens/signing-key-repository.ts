import type { Executor } from '../storage/database.js';
import type { SigningKeysTable } from '../storage/schema.js';

export type KeyStatus = 'ACTIVE' | 'PREVIOUS' | 'RETIRED';

/**
 * `signing_keys`: each tenant's keys for decision tokens, checkpoints and receipts. A partial
 * unique index admits one ACTIVE key per tenant, whatever races.
 */
export const signingKeyRepository = {
  /** The tenant's keys (of the statuses given), newest first. */
  async list(db: Executor, tenantId: string, statuses?: readonly KeyStatus[]): Promise<SigningKeysTable[]> {
    let query = db.selectFrom('signing_keys').selectAll().where('tenant_id', '=', tenantId);
    if (statuses) query = query.where('status', 'in', [...statuses]);
    return query.orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
  },

  /** The oldest key of any tenant whose private key is held here (not an external signer's). */
  async oldestLocal(db: Executor): Promise<SigningKeysTable | undefined> {
    return db
      .selectFrom('signing_keys')
      .selectAll()
      .where('private_key', 'is not', null)
      .orderBy('created_at')
      .orderBy('kid')
      .limit(1)
      .executeTakeFirst();
  },

  async get(db: Executor, tenantId: string, kid: string): Promise<SigningKeysTable | undefined> {
    return db
      .selectFrom('signing_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('kid', '=', kid)
      .executeTakeFirst();
  },

  /** Fails with a unique violation for a second ACTIVE key of the tenant (or a kid taken). */
  async insert(db: Executor, row: SigningKeysTable): Promise<void> {
    await db.insertInto('signing_keys').values(row).execute();
  },

  /** ACTIVE → PREVIOUS, the start of the rotation guard. */
  async demote(trx: Executor, tenantId: string, kid: string, now: number): Promise<void> {
    await trx
      .updateTable('signing_keys')
      .set({ status: 'PREVIOUS', rotated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('kid', '=', kid)
      .execute();
  },

  /** PREVIOUS → RETIRED: kept to verify old receipts and checkpoints, never tokens. */
  async retire(trx: Executor, tenantId: string, kid: string, now: number): Promise<void> {
    await trx
      .updateTable('signing_keys')
      .set({ status: 'RETIRED', retired_at: now })
      .where('tenant_id', '=', tenantId)
      .where('kid', '=', kid)
      .execute();
  },
};
