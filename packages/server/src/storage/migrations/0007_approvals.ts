import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Approval columns on intents (filled from existing escalations) and the human decisions on them. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  // Escalations are intents with an escalation id; these two columns let the approvals queue
  // and the expiry sweep filter without parsing the approval JSON.
  await db.schema.alterTable('intents').addColumn('approval_queue', 'text').execute();
  await db.schema.alterTable('intents').addColumn('approval_expires_at', millis).execute();
  // Escalations recorded before this migration get the two columns from their approval JSON.
  const escalations = await sql<{ tenant_id: string; id: string; approval: string }>`
    select tenant_id, id, approval from intents where approval is not null`.execute(db);
  for (const row of escalations.rows) {
    const approval = JSON.parse(row.approval) as { queue: string; expiresAt: string };
    await sql`update intents set approval_queue = ${approval.queue},
      approval_expires_at = ${Date.parse(approval.expiresAt)}
      where tenant_id = ${row.tenant_id} and id = ${row.id}`.execute(db);
  }
  await db.schema
    .createIndex('intents_review_idx')
    .on('intents')
    .columns(['tenant_id', 'review_state', 'id'])
    .execute();
  await db.schema
    .createIndex('intents_expiry_idx')
    .on('intents')
    .columns(['review_state', 'approval_expires_at'])
    .execute();
  // Each human decision on an escalation; one per principal, so two approvals are two people.
  await db.schema
    .createTable('intent_approvals')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text', (c) => c.notNull())
    .addColumn('escalation_id', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('principal_id', 'text', (c) => c.notNull())
    .addColumn('approver', 'text', (c) => c.notNull())
    .addColumn('rationale', 'text', (c) => c.notNull())
    .addColumn('decided_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('intent_approvals_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('intent_approvals_principal_idx')
    .on('intent_approvals')
    .columns(['tenant_id', 'intent_id', 'principal_id'])
    .unique()
    .execute();
}
