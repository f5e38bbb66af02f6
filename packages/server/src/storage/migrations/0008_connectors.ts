import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Connectors, one per tenant and target system. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('connectors')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('target_system', 'text', (c) => c.notNull())
    .addColumn('auto_execute', 'integer', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('secrets', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('last_checked_at', millis)
    .addColumn('latency_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_check_at', millis, (c) => c.notNull())
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('connectors_pk', ['tenant_id', 'id'])
    // One connector per tenant and target (contract §8): a constraint, not a check-then-insert.
    .addUniqueConstraint('connectors_tenant_target_uq', ['tenant_id', 'target_system'])
    .execute();
  // The health checkers' query: due connectors across tenants.
  await db.schema.createIndex('connectors_due_idx').on('connectors').column('next_check_at').execute();
}
