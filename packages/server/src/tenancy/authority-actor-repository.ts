import type { Executor } from '../storage/database.js';

/** An agent actor's standing with the tenant (gate `rbac`): blocked actors are denied. */
export interface AuthorityActor {
  actorId: string;
  status: 'active' | 'blocked';
  reason: string | null;
  updatedAtMs: number;
  updatedBy: string;
}

/** `authority_actors`: the tenant's list of agent actors it set a status for. */
export const authorityActorRepository = {
  async set(trx: Executor, tenantId: string, actor: AuthorityActor): Promise<void> {
    await trx
      .insertInto('authority_actors')
      .values({
        tenant_id: tenantId,
        actor_id: actor.actorId,
        status: actor.status,
        reason: actor.reason,
        updated_at: actor.updatedAtMs,
        updated_by: actor.updatedBy,
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'actor_id']).doUpdateSet({
          status: actor.status,
          reason: actor.reason,
          updated_at: actor.updatedAtMs,
          updated_by: actor.updatedBy,
        }),
      )
      .execute();
  },

  /** The actor's status, or undefined when the tenant never set one. */
  async status(db: Executor, tenantId: string, actorId: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('authority_actors')
      .select('status')
      .where('tenant_id', '=', tenantId)
      .where('actor_id', '=', actorId)
      .executeTakeFirst();
    return row?.status;
  },

  /** Every actor of the tenant, by id. */
  async list(db: Executor, tenantId: string): Promise<AuthorityActor[]> {
    const rows = await db
      .selectFrom('authority_actors')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('actor_id')
      .execute();
    return rows.map((r) => ({
      actorId: r.actor_id,
      status: r.status as AuthorityActor['status'],
      reason: r.reason,
      updatedAtMs: r.updated_at,
      updatedBy: r.updated_by,
    }));
  },
};
