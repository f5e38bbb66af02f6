import type { Executor } from '../storage/database.js';

/** A break verification found in a tenant's chain (contract §6), open until acknowledged. */
export interface ChainBreakRow {
  brokenAt: number;
  reason: string;
  detectedAtMs: number;
  acknowledgedAtMs: number | null;
  acknowledgedBy: string | null;
  note: string | null;
}

/** Chain breaks, one per (tenant, index of the first broken entry). */
export const chainBreakRepository = {
  /** Records a break unless one is recorded at that index; true when this call recorded it. */
  async recordOnce(
    trx: Executor,
    tenantId: string,
    found: { brokenAt: number; reason: string; detectedAtMs: number },
  ): Promise<boolean> {
    const inserted = await trx
      .insertInto('chain_breaks')
      .values({
        tenant_id: tenantId,
        broken_at: found.brokenAt,
        reason: found.reason,
        detected_at: found.detectedAtMs,
        acknowledged_at: null,
        acknowledged_by: null,
        note: null,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'broken_at']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 0;
  },

  /** Breaks not acknowledged yet, by index. */
  async listOpen(db: Executor, tenantId: string): Promise<ChainBreakRow[]> {
    const rows = await db
      .selectFrom('chain_breaks')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('acknowledged_at', 'is', null)
      .orderBy('broken_at')
      .execute();
    return rows.map((r) => ({
      brokenAt: r.broken_at,
      reason: r.reason,
      detectedAtMs: r.detected_at,
      acknowledgedAtMs: r.acknowledged_at,
      acknowledgedBy: r.acknowledged_by,
      note: r.note,
    }));
  },

  /**
   * Acknowledges the open break at `brokenAt`; its reason, or undefined when there is no open
   * break there (none at all, or acknowledged already).
   */
  async acknowledge(
    trx: Executor,
    tenantId: string,
    brokenAt: number,
    acknowledgement: { atMs: number; by: string; note: string },
  ): Promise<string | undefined> {
    const updated = await trx
      .updateTable('chain_breaks')
      .set({
        acknowledged_at: acknowledgement.atMs,
        acknowledged_by: acknowledgement.by,
        note: acknowledgement.note,
      })
      .where('tenant_id', '=', tenantId)
      .where('broken_at', '=', brokenAt)
      .where('acknowledged_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return undefined;
    const row = await trx
      .selectFrom('chain_breaks')
      .select('reason')
      .where('tenant_id', '=', tenantId)
      .where('broken_at', '=', brokenAt)
      .executeTakeFirstOrThrow();
    return row.reason;
  },
};
