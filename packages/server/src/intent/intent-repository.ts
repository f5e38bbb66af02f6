import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export type IntentDecision = 'APPROVED' | 'ESCALATED' | 'DENIED';

/** The stored outcome of an intent as the trust primitives need it (the decision loop adds the rest). */
export interface IntentRecord {
  tenantId: string;
  id: string;
  correlationId: string;
  decision: IntentDecision;
  /** `PENDING` while an escalation waits for a human, else `DECIDED`. */
  reviewState: 'PENDING' | 'DECIDED';
  targetSystem: string;
  token: string | null;
  createdAt: number;
}

export const intentRepository = {
  async insert(trx: Kysely<Database>, intent: IntentRecord): Promise<void> {
    await trx
      .insertInto('intents')
      .values({
        tenant_id: intent.tenantId,
        id: intent.id,
        correlation_id: intent.correlationId,
        decision: intent.decision,
        review_state: intent.reviewState,
        target_system: intent.targetSystem,
        token: intent.token,
        created_at: intent.createdAt,
        updated_at: intent.createdAt,
      })
      .execute();
  },

  async get(db: Kysely<Database>, tenantId: string, id: string): Promise<IntentRecord | undefined> {
    const row = await db
      .selectFrom('intents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      tenantId: row.tenant_id,
      id: row.id,
      correlationId: row.correlation_id,
      decision: row.decision as IntentDecision,
      reviewState: row.review_state as 'PENDING' | 'DECIDED',
      targetSystem: row.target_system,
      token: row.token,
      createdAt: row.created_at,
    };
  },
};
