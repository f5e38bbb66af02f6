import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * Lookups of the console: an escalation by the id in its approvalUrl (contract §14), and a ticket
 * with the safety bit and citations of the decision that opened it.
 */
export async function up(db: Kysely<unknown>, _types: ColumnTypes): Promise<void> {
  await db.schema
    .createIndex('intents_escalation_idx')
    .on('intents')
    .columns(['tenant_id', 'escalation_id'])
    .execute();
  await db.schema
    .createIndex('physical_decisions_ticket_idx')
    .on('physical_decisions')
    .columns(['tenant_id', 'escalation_ticket_id'])
    .execute();
}
