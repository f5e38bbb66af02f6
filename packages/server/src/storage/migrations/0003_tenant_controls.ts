import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Per-tenant settings (catastrophic floor, thresholds, active policy version) and the blocked-actor list. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
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
}
