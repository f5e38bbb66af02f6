import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Tenants, their API keys, and the marker of one-time bootstrap actions (the demo tenant). */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('kill_switch_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('kill_switch_reason', 'text')
    .addColumn('kill_switch_changed_by', 'text')
    .addColumn('kill_switch_changed_at', millis)
    .addColumn('ip_allowlist', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text')
    .addColumn('expires_at', millis)
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('revoked_at', millis)
    .addColumn('last_used_at', millis)
    .addPrimaryKeyConstraint('api_keys_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('api_keys_tenant_hash_uq', ['tenant_id', 'key_hash'])
    .execute();
  // Authentication looks a key up by its hash before the tenant is trusted.
  await db.schema.createIndex('api_keys_hash_idx').on('api_keys').column('key_hash').execute();

  // One row per one-time bootstrap action (the demo tenant); the unique name guards it.
  await db.schema
    .createTable('bootstrap')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('created_at', millis, (c) => c.notNull())
    .execute();
}
