import type { Executor } from '../../storage/database.js';
import type { RecordedDecision } from '../domain/intent-record.js';

/** One human decision on an escalated intent (contract §4.8). */
export interface RecordedApproval {
  tenantId: string;
  id: string;
  intentId: string;
  escalationId: string;
  decision: 'approve' | 'deny';
  /** The authenticated principal that decided. */
  principalId: string;
  /** The display identity the body gave, `{id?, name?}`. */
  approver: { id?: string | undefined; name?: string | undefined };
  rationale: string;
  decidedAtMs: number;
}

/** `intent_approvals`: the human decisions on escalations, one per (intent, principal). */
export const approvalRepository = {
  /** Fails with a unique violation when the principal has decided on the intent already. */
  async insert(trx: Executor, approval: RecordedApproval): Promise<void> {
    await trx
      .insertInto('intent_approvals')
      .values({
        tenant_id: approval.tenantId,
        id: approval.id,
        intent_id: approval.intentId,
        escalation_id: approval.escalationId,
        decision: approval.decision,
        principal_id: approval.principalId,
        approver: JSON.stringify(approval.approver),
        rationale: approval.rationale,
        decided_at: approval.decidedAtMs,
      })
      .execute();
  },

  /** The human decisions recorded on an intent's escalation, oldest first. */
  async decisionsOf(db: Executor, tenantId: string, intentId: string): Promise<RecordedDecision[]> {
    const rows = await db
      .selectFrom('intent_approvals')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('intent_id', '=', intentId)
      .orderBy('decided_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => {
      const approver = JSON.parse(row.approver) as { id?: string; name?: string };
      return {
        approvalId: row.id,
        decision: row.decision as RecordedDecision['decision'],
        approver: { principalId: row.principal_id, id: approver.id ?? null, name: approver.name ?? null },
        rationale: row.rationale,
        decidedAt: new Date(row.decided_at).toISOString(),
      };
    });
  },
};
