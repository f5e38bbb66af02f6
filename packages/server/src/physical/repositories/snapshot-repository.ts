import type { Executor } from '../../storage/database.js';
import type { PhysicalState } from '../domain/index.js';

/** `physical_snapshots`: attested physical state under its reference (physicalStateRef). */
export const snapshotRepository = {
  async insert(
    trx: Executor,
    snapshot: { tenantId: string; ref: string; state: PhysicalState; createdAtMs: number },
  ): Promise<void> {
    await trx
      .insertInto('physical_snapshots')
      .values({
        tenant_id: snapshot.tenantId,
        id: snapshot.ref,
        state: JSON.stringify(snapshot.state),
        created_at: snapshot.createdAtMs,
      })
      .execute();
  },

  /** The states of some references of the tenant, by reference (unknown ones left out). */
  async states(db: Executor, tenantId: string, refs: readonly string[]): Promise<Map<string, PhysicalState>> {
    const states = new Map<string, PhysicalState>();
    if (refs.length === 0) return states;
    const rows = await db
      .selectFrom('physical_snapshots')
      .select(['id', 'state'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', [...refs])
      .execute();
    for (const row of rows) states.set(row.id, JSON.parse(row.state) as PhysicalState);
    return states;
  },
};
