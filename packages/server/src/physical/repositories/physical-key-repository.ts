import type { Executor } from '../../storage/database.js';
import type { PhysicalSigningKeysTable } from '../../storage/physical-schema.js';
import { forUpdate } from '../../storage/row-lock.js';

export type PhysicalKeyStatus = 'ACTIVE' | 'PREVIOUS' | 'RETIRED';

/**
 * `physical_signing_keys`: the physical surface's RS256 keys, shared by every tenant (no tenant
 * column by design). A partial unique index admits one ACTIVE key.
 */
export const physicalKeyRepository = {
  /** The keys (of the statuses given), newest first; `forUpdate` locks them for the transaction. */
  async list(
    db: Executor,
    statuses?: readonly PhysicalKeyStatus[],
    options: { forUpdate?: boolean } = {},
  ): Promise<PhysicalSigningKeysTable[]> {
    let query = db.selectFrom('physical_signing_keys').selectAll();
    if (statuses) query = query.where('status', 'in', [...statuses]);
    query = query.orderBy('created_at', 'desc').orderBy('kid', 'desc');
    return (options.forUpdate ? forUpdate(db, query) : query).execute();
  },

  /** Inserts the key unless it conflicts (a concurrent first key won: the caller reads the winner). */
  async insertIfAbsent(db: Executor, row: PhysicalSigningKeysTable): Promise<void> {
    await db
      .insertInto('physical_signing_keys')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  /** Fails with a unique violation while another key is ACTIVE. */
  async insert(trx: Executor, row: PhysicalSigningKeysTable): Promise<void> {
    await trx.insertInto('physical_signing_keys').values(row).execute();
  },

  /** ACTIVE → PREVIOUS. */
  async demote(trx: Executor, kid: string, now: number): Promise<void> {
    await trx
      .updateTable('physical_signing_keys')
      .set({ status: 'PREVIOUS', rotated_at: now })
      .where('kid', '=', kid)
      .execute();
  },

  /** PREVIOUS → RETIRED. */
  async retire(trx: Executor, kid: string, now: number): Promise<void> {
    await trx
      .updateTable('physical_signing_keys')
      .set({ status: 'RETIRED', retired_at: now })
      .where('kid', '=', kid)
      .execute();
  },
};
