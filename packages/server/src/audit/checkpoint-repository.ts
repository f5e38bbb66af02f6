import { chainTimestamp } from '../chain/audit-entry.js';
import type { Executor } from '../storage/database.js';
import type { Checkpoint } from './checkpoint.js';

/** The signed checkpoints of each tenant's chain, one per (tenant, index). */
export const checkpointRepository = {
  /** Checkpoints with `from <= index <= to`, in index order, at most `limit`. */
  async list(
    db: Executor,
    tenantId: string,
    range: { from?: number; to?: number; limit?: number } = {},
  ): Promise<Checkpoint[]> {
    let query = db.selectFrom('audit_checkpoints').selectAll().where('tenant_id', '=', tenantId);
    if (range.from !== undefined) query = query.where('idx', '>=', range.from);
    if (range.to !== undefined) query = query.where('idx', '<=', range.to);
    if (range.limit !== undefined) query = query.limit(range.limit);
    const rows = await query.orderBy('idx').execute();
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      index: r.idx,
      entryHash: r.entry_hash,
      issuedAt: chainTimestamp(r.issued_at),
      kid: r.kid,
      signature: r.signature,
    }));
  },

  /** Stores a checkpoint unless its index has one already (two signers raced): the first stays. */
  async insert(trx: Executor, checkpoint: Checkpoint & { issuedAtMs: number }): Promise<void> {
    await trx
      .insertInto('audit_checkpoints')
      .values({
        tenant_id: checkpoint.tenantId,
        idx: checkpoint.index,
        entry_hash: checkpoint.entryHash,
        issued_at: checkpoint.issuedAtMs,
        kid: checkpoint.kid,
        signature: checkpoint.signature,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'idx']).doNothing())
      .execute();
  },
};
