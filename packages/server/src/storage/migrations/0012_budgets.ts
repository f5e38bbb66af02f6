import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * Agent budgets (contract §16): each tenant's budget list, and the count of APPROVED decisions per
 * budget, actor and fixed UTC window, changed in the decision's own transaction.
 */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('budget_sets')
    .addColumn('tenant_id', 'text', (c) => c.notNull().primaryKey())
    .addColumn('budgets', 'text', (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('budget_counters')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('budget_id', 'text', (c) => c.notNull())
    .addColumn('window_start', millis, (c) => c.notNull())
    .addColumn('approved', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('budget_counters_pk', ['tenant_id', 'actor_id', 'budget_id', 'window_start'])
    .execute();
}
