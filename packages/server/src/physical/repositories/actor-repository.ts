import type { Executor } from '../../storage/database.js';
import type { PhysicalActorsTable } from '../../storage/physical-schema.js';
import { forUpdate } from '../../storage/row-lock.js';

/** The columns a registration may change. */
export type ActorColumns = Pick<
  PhysicalActorsTable,
  'actor_kind' | 'actor_identity_kind' | 'display_name' | 'status' | 'metadata'
>;

/** `physical_actors`: each tenant's roster, unique by (tenant, actorIdentity). */
export const actorRepository = {
  /** Inserts the actor unless the tenant has its identity already; true when this call inserted it. */
  async insertIfAbsent(trx: Executor, row: PhysicalActorsTable): Promise<boolean> {
    const created = await trx
      .insertInto('physical_actors')
      .values(row)
      .onConflict((oc) => oc.columns(['tenant_id', 'actor_identity']).doNothing())
      .executeTakeFirst();
    return Number(created.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  /** The roster entry of an identity; `forUpdate` locks it for the rest of the transaction. */
  async findByIdentity(
    db: Executor,
    tenantId: string,
    actorIdentity: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<PhysicalActorsTable | undefined> {
    const query = db
      .selectFrom('physical_actors')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('actor_identity', '=', actorIdentity);
    return (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst();
  },

  async update(
    trx: Executor,
    tenantId: string,
    id: string,
    change: ActorColumns,
    now: number,
  ): Promise<void> {
    await trx
      .updateTable('physical_actors')
      .set({
        actor_kind: change.actor_kind,
        actor_identity_kind: change.actor_identity_kind,
        display_name: change.display_name,
        status: change.status,
        metadata: change.metadata,
        updated_at: now,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /** Most recently registered first, below `before`, at most `limit`. */
  async list(
    db: Executor,
    tenantId: string,
    page: { before?: string | undefined; limit: number },
  ): Promise<PhysicalActorsTable[]> {
    let query = db.selectFrom('physical_actors').selectAll().where('tenant_id', '=', tenantId);
    if (page.before !== undefined) query = query.where('id', '<', page.before);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  },
};
