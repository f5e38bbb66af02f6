import type { Executor } from '../../storage/database.js';
import type { PhysicalDecisionsTable } from '../../storage/physical-schema.js';
import type { ActorKind } from '../domain/index.js';

/** An issued physical token: its issuance's correlation id and the actor it was issued to. */
export interface IssuedToken {
  correlationId: string;
  actorIdentity: string;
  actorKind: ActorKind;
}

/** Which decisions a page holds: newest first, below `before`, at most `limit`. */
export interface DecisionQuery {
  limit: number;
  before?: string | undefined;
  oiCode?: string | undefined;
  actorIdentity?: string | undefined;
}

/** `physical_decisions`: every physical decision; `token_jti` set (and unique) for an ALLOW. */
export const decisionRepository = {
  async insert(trx: Executor, row: PhysicalDecisionsTable): Promise<void> {
    await trx.insertInto('physical_decisions').values(row).execute();
  },

  /** The decision that issued a token of the tenant. */
  async findByJti(
    db: Executor,
    tenantId: string,
    tokenJti: string,
  ): Promise<PhysicalDecisionsTable | undefined> {
    return db
      .selectFrom('physical_decisions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('token_jti', '=', tokenJti)
      .executeTakeFirst();
  },

  async list(db: Executor, tenantId: string, query: DecisionQuery): Promise<PhysicalDecisionsTable[]> {
    let select = db.selectFrom('physical_decisions').selectAll().where('tenant_id', '=', tenantId);
    if (query.oiCode !== undefined) select = select.where('oi_code', '=', query.oiCode);
    if (query.actorIdentity !== undefined) select = select.where('actor_identity', '=', query.actorIdentity);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    return select.orderBy('id', 'desc').limit(query.limit).execute();
  },

  /** The issued tokens of the tenant among `jtis`: each one's issuance correlation id and actor. */
  async issuedTokens(
    db: Executor,
    tenantId: string,
    jtis: readonly string[],
  ): Promise<Map<string, IssuedToken>> {
    if (jtis.length === 0) return new Map();
    const rows = await db
      .selectFrom('physical_decisions')
      .select(['token_jti', 'correlation_id', 'actor_identity', 'actor_kind'])
      .where('tenant_id', '=', tenantId)
      .where('token_jti', 'in', [...new Set(jtis)])
      .execute();
    return new Map(
      rows.flatMap((row) =>
        row.token_jti === null
          ? []
          : [
              [
                row.token_jti,
                {
                  correlationId: row.correlation_id,
                  actorIdentity: row.actor_identity,
                  actorKind: row.actor_kind as ActorKind,
                },
              ],
            ],
      ),
    );
  },

  /** The decisions that opened the given tickets (ESCALATE), through `physical_decisions_ticket_idx`. */
  async escalationsOfTickets(
    db: Executor,
    tenantId: string,
    ticketIds: readonly string[],
  ): Promise<PhysicalDecisionsTable[]> {
    return db
      .selectFrom('physical_decisions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('escalation_ticket_id', 'in', [...ticketIds])
      .execute();
  },
};
