import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Webhook endpoints and the outbox of deliveries. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoints_pk', ['tenant_id', 'id'])
    .execute();

  // The outbox: one row per (event, endpoint), written in the transaction of the change it reports.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', millis)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', millis)
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'endpoint_id', 'id'])
    .execute();
  // The workers' query: due deliveries across tenants, oldest first.
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
