import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { SqlDialect } from './database.js';

/**
 * Versioned migrations, applied in name order. Each receives the dialect so that the few type
 * differences (bigint for millisecond times on PostgreSQL) stay in one place.
 */
function migrationsFor(dialect: SqlDialect): Record<string, Migration> {
  const millis = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    '0001_tenants_and_keys': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    '0002_trust_primitives': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    '0003_tenant_controls': {
      async up(db: Kysely<unknown>) {
        // Floor setting and risk thresholds: one row per tenant.
        await db.schema
          .createTable('tenant_settings')
          .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
          .addColumn('floor_enabled', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('floor_agreement_version', 'text')
          .addColumn('floor_changed_by', 'text')
          .addColumn('floor_changed_at', millis)
          .addColumn('thresholds', 'text')
          .addColumn('thresholds_updated_at', millis)
          .addColumn('thresholds_updated_by', 'text')
          .addColumn('active_policy_version', 'integer')
          .execute();

        await db.schema
          .createTable('authority_actors')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('actor_id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('reason', 'text')
          .addColumn('updated_at', millis, (c) => c.notNull())
          .addColumn('updated_by', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('authority_actors_pk', ['tenant_id', 'actor_id'])
          .execute();
      },
    },
    '0004_decision_loop': {
      async up(db: Kysely<unknown>) {
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
      },
    },
  };
}

class InCodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: SqlDialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrationsFor(this.dialect);
  }
}

export interface MigrationOutcome {
  applied: string[];
}

/** Applies every pending migration; throws the first failure. */
export async function migrateToLatest(
  db: Kysely<unknown>,
  dialect: SqlDialect,
  schema?: string,
): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrationProvider(dialect),
    // Kysely looks its bookkeeping tables up across schemas; pin them to ours.
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
