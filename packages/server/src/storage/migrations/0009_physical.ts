import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** The physical surface: signing keys, actors, snapshots, decisions, verifications, revocations, tickets. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
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
}
