import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Signing keys, tenant secrets, consumed token nonces, and the audit chain: heads, entries, checkpoints, breaks. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('sign_url', 'text')
    .addColumn('sign_headers', 'text')
    .addColumn('created_at', millis, (c) => c.notNull())
    .addColumn('rotated_at', millis)
    .addColumn('retired_at', millis)
    .addPrimaryKeyConstraint('signing_keys_pk', ['tenant_id', 'kid'])
    .execute();
  // At most one ACTIVE key per tenant, whatever races.
  await db.schema
    .createIndex('signing_keys_one_active')
    .on('signing_keys')
    .column('tenant_id')
    .unique()
    .where(sql.ref('status'), '=', 'ACTIVE')
    .execute();

  await db.schema
    .createTable('tenant_secrets')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('tenant_secrets_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('tenant_secrets_one_active')
    .on('tenant_secrets')
    .columns(['tenant_id', 'kind'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();

  await db.schema
    .createTable('token_nonces')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text')
    .addColumn('adapter_id', 'text', (c) => c.notNull())
    .addColumn('consumed_at', millis, (c) => c.notNull())
    .addColumn('expires_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('token_nonces_pk', ['tenant_id', 'nonce'])
    .execute();

  await db.schema
    .createTable('audit_heads')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('last_index', 'integer', (c) => c.notNull())
    .addColumn('last_hash', 'text', (c) => c.notNull())
    .addColumn('last_checkpoint_index', 'integer', (c) => c.notNull())
    .addColumn('last_checkpoint_at', millis, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_entries')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('correlation_id', 'text')
    .addColumn('intent_id', 'text')
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('target_system', 'text')
    .addColumn('previous_hash', 'text', (c) => c.notNull())
    .addColumn('entry_hash', 'text', (c) => c.notNull())
    .addColumn('canonical', 'text', (c) => c.notNull())
    .addColumn('created_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_entries_pk', ['tenant_id', 'idx'])
    .execute();
  await db.schema
    .createIndex('audit_entries_intent_idx')
    .on('audit_entries')
    .columns(['tenant_id', 'intent_id'])
    .execute();

  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('entry_hash', 'text', (c) => c.notNull())
    .addColumn('issued_at', millis, (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_checkpoints_pk', ['tenant_id', 'idx'])
    .execute();

  await db.schema
    .createTable('chain_breaks')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('broken_at', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('detected_at', millis, (c) => c.notNull())
    .addColumn('acknowledged_at', millis)
    .addColumn('acknowledged_by', 'text')
    .addColumn('note', 'text')
    .addPrimaryKeyConstraint('chain_breaks_pk', ['tenant_id', 'broken_at'])
    .execute();
}
