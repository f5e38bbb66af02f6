import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Console users and their sessions. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
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
}
