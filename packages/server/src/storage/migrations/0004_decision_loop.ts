import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Policy versions, intents, and idempotency keys. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('policy_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('packs', 'text', (c) => c.notNull())
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('activated_at', millis)
    .addPrimaryKeyConstraint('policy_versions_pk', ['tenant_id', 'version'])
    .execute();

  await db.schema
    .createTable('intents')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .addColumn('principal_id', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('target_system', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('review_state', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('authority_decision', 'text', (c) => c.notNull())
    .addColumn('hypotheses', 'text', (c) => c.notNull())
    .addColumn('execution', 'text', (c) => c.notNull())
    .addColumn('token', 'text')
    .addColumn('escalation_id', 'text')
    .addColumn('approval', 'text')
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('intents_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('intents_status_idx')
    .on('intents')
    .columns(['tenant_id', 'status', 'id'])
    .execute();

  // Idempotency keys per tenant and surface: the primary key makes the first claim win.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('expires_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'scope', 'key'])
    .execute();
}
