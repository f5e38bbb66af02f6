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
    '0005_portal_users_sessions': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('portal_users')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('password_hash', 'text', (c) => c.notNull())
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('totp_secret', 'text')
          .addColumn('totp_pending_secret', 'text')
          .addColumn('last_totp_step', 'integer')
          .addColumn('created_at', millis, (c) => c.notNull())
          .addColumn('updated_at', millis, (c) => c.notNull())
          .addPrimaryKeyConstraint('portal_users_pk', ['tenant_id', 'id'])
          .addUniqueConstraint('portal_users_tenant_email_uq', ['tenant_id', 'email'])
          .execute();

        await db.schema
          .createTable('portal_sessions')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('session_hash', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('created_at', millis, (c) => c.notNull())
          .addColumn('last_seen_at', millis, (c) => c.notNull())
          .addColumn('mfa_verified', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('mfa_failures', 'integer', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('portal_sessions_pk', ['tenant_id', 'session_hash'])
          .execute();
        // A session is looked up by its hash before its tenant is trusted, as API keys are.
        await db.schema
          .createIndex('portal_sessions_hash_idx')
          .on('portal_sessions')
          .column('session_hash')
          .execute();
      },
    },
    '0006_webhooks': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    '0007_approvals': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    '0008_connectors': {
      async up(db: Kysely<unknown>) {
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
      },
    },
    '0009_physical': {
      async up(db: Kysely<unknown>) {
        // The physical surface's RS256 signer: one key set shared by every tenant (contract §9).
        await db.schema
          .createTable('physical_signing_keys')
          .addColumn('kid', 'text', (c) => c.primaryKey())
          .addColumn('alg', 'text', (c) => c.notNull())
          .addColumn('bits', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('public_jwk', 'text', (c) => c.notNull())
          .addColumn('private_key', 'text', (c) => c.notNull())
          .addColumn('created_at', millis, (c) => c.notNull())
          .addColumn('rotated_at', millis)
          .addColumn('retired_at', millis)
          .execute();
        // At most one ACTIVE physical key, whatever races (first use on two instances, two rotations).
        await db.schema
          .createIndex('physical_signing_keys_one_active')
          .on('physical_signing_keys')
          .column('status')
          .unique()
          .where(sql.ref('status'), '=', 'ACTIVE')
          .execute();

        await db.schema
          .createTable('physical_actors')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('actor_identity', 'text', (c) => c.notNull())
          .addColumn('actor_identity_kind', 'text', (c) => c.notNull())
          .addColumn('actor_kind', 'text', (c) => c.notNull())
          .addColumn('display_name', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('metadata', 'text')
          .addColumn('created_at', millis, (c) => c.notNull())
          .addColumn('updated_at', millis, (c) => c.notNull())
          .addPrimaryKeyConstraint('physical_actors_pk', ['tenant_id', 'id'])
          .addUniqueConstraint('physical_actors_identity_uq', ['tenant_id', 'actor_identity'])
          .execute();

        await db.schema
          .createTable('physical_snapshots')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('created_at', millis, (c) => c.notNull())
          .addPrimaryKeyConstraint('physical_snapshots_pk', ['tenant_id', 'id'])
          .execute();

        // Every physical decision (ALLOW, ESCALATE, DENY); token_jti only for issued tokens.
        await db.schema
          .createTable('physical_decisions')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('token_jti', 'text')
          .addColumn('decision', 'text', (c) => c.notNull())
          .addColumn('correlation_id', 'text', (c) => c.notNull())
          .addColumn('issued_at', millis, (c) => c.notNull())
          .addColumn('expires_at', millis)
          .addColumn('actor_identity', 'text', (c) => c.notNull())
          .addColumn('actor_kind', 'text', (c) => c.notNull())
          .addColumn('oi_code', 'text', (c) => c.notNull())
          .addColumn('structured_goal', 'text', (c) => c.notNull())
          .addColumn('dag_node', 'text', (c) => c.notNull())
          .addColumn('physical_state_ref', 'text')
          .addColumn('safety_bit', 'integer', (c) => c.notNull())
          .addColumn('safety_citations', 'text', (c) => c.notNull())
          .addColumn('safe_default', 'text', (c) => c.notNull())
          .addColumn('clause_id', 'text')
          .addColumn('clause_ids', 'text', (c) => c.notNull())
          .addColumn('escalation_ticket_id', 'text')
          .addColumn('operator_ticket_id', 'text')
          .addPrimaryKeyConstraint('physical_decisions_pk', ['tenant_id', 'id'])
          .addUniqueConstraint('physical_decisions_jti_uq', ['tenant_id', 'token_jti'])
          .execute();
        await db.schema
          .createIndex('physical_decisions_oi_idx')
          .on('physical_decisions')
          .columns(['tenant_id', 'oi_code', 'id'])
          .execute();
        await db.schema
          .createIndex('physical_decisions_actor_idx')
          .on('physical_decisions')
          .columns(['tenant_id', 'actor_identity', 'id'])
          .execute();

        await db.schema
          .createTable('physical_verifications')
          .addColumn('tenant_id', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('token_jti', 'text', (c) => c.notNull())
          .addColumn('edge_node_id', 'text', (c) => c.notNull())
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('reason', 'text')
          .addColumn('at_ms', millis, (c) => c.notNull())
          .addColumn('reported_at', millis, (c) => c.notNull())
          .addColumn('reported_by', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('physical_verifications_pk', ['tenant_id', 'id'])
          .execute();
        await db.schema
          .createIndex('physical_verifications_jti_idx')
          .on('physical_verifications')
          .columns(['tenant_id', 'token_jti', 'id'])
          .execute();

        // revokedAtMs is unique per tenant: verifiers page with an exclusive `since`.
        await db.schema
          .createTable('physical_revocations')
          .addColumn('tenant_id', 'text', (c) => c.notNull())
          .addColumn('token_jti', 'text', (c) => c.notNull())
          .addColumn('revoked_at', millis, (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('revoked_by', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('physical_revocations_pk', ['tenant_id', 'token_jti'])
          .addUniqueConstraint('physical_revocations_time_uq', ['tenant_id', 'revoked_at'])
          .execute();

        await db.schema
          .createTable('physical_tickets')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('oi_code', 'text', (c) => c.notNull())
          .addColumn('structured_goal', 'text', (c) => c.notNull())
          .addColumn('correlation_id', 'text', (c) => c.notNull())
          .addColumn('approved_by', 'text')
          .addColumn('approved_at', millis)
          .addColumn('operator', 'text')
          .addColumn('rejection_reason', 'text')
          .addColumn('expires_at', millis, (c) => c.notNull())
          .addColumn('created_at', millis, (c) => c.notNull())
          .addColumn('consumed_at', millis)
          .addPrimaryKeyConstraint('physical_tickets_pk', ['tenant_id', 'id'])
          .execute();
        await db.schema
          .createIndex('physical_tickets_status_idx')
          .on('physical_tickets')
          .columns(['tenant_id', 'status', 'id'])
          .execute();
      },
    },
    '0010_physical_policy': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('physical_policies')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('document', 'text', (c) => c.notNull())
          .addColumn('active', 'integer', (c) => c.notNull())
          .addColumn('created_at', millis, (c) => c.notNull())
          .addColumn('created_by', 'text', (c) => c.notNull())
          .addColumn('activated_at', millis)
          .addPrimaryKeyConstraint('physical_policies_pk', ['tenant_id', 'version'])
          .addUniqueConstraint('physical_policies_id_uq', ['tenant_id', 'id'])
          .execute();
        // One active version per tenant, whatever races.
        await db.schema
          .createIndex('physical_policies_one_active')
          .on('physical_policies')
          .column('tenant_id')
          .unique()
          .where(sql.ref('active'), '=', 1)
          .execute();
      },
    },
    '0011_console_lookups': {
      async up(db: Kysely<unknown>) {
        // The console opens an escalation by the id in its approvalUrl (contract §14), and shows a
        // ticket with the safety bit and citations of the decision that opened it.
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
  /** Stop after this migration (tests of a migration's data step); the latest when omitted. */
  upTo?: string,
): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrationProvider(dialect),
    // Kysely looks its bookkeeping tables up across schemas; pin them to ours.
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
