import type { Executor } from '../storage/database.js';
import type { LogCheckpointsTable } from '../storage/transparency-schema.js';

/** A signed checkpoint note of a tenant's log, as the log signed it. */
export interface StoredNote {
  tenantId: string;
  treeSize: number;
  rootHash: string;
  note: string;
  createdAt: number;
}

function fromRow(row: LogCheckpointsTable): StoredNote {
  return {
    tenantId: row.tenant_id,
    treeSize: row.tree_size,
    rootHash: row.root_hash,
    note: row.note,
    createdAt: row.created_at,
  };
}

/** The log's signed checkpoint notes, one per (tenant, tree size). */
export const logCheckpointRepository = {
  /** The note of the largest tree signed so far. */
  async latest(db: Executor, tenantId: string): Promise<StoredNote | undefined> {
    const row = await db
      .selectFrom('log_checkpoints')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('tree_size', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  },

  async atSize(db: Executor, tenantId: string, treeSize: number): Promise<StoredNote | undefined> {
    const row = await db
      .selectFrom('log_checkpoints')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('tree_size', '=', treeSize)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  },

  /** Stores a note unless its size has one already (two signers raced): the first stays. */
  async insertIfAbsent(db: Executor, note: StoredNote): Promise<void> {
    await db
      .insertInto('log_checkpoints')
      .values({
        tenant_id: note.tenantId,
        tree_size: note.treeSize,
        root_hash: note.rootHash,
        note: note.note,
        created_at: note.createdAt,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'tree_size']).doNothing())
      .execute();
  },
};
