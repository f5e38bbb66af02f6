import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * Two-person review of intent policy versions (contract §16): the tenant's review setting, the
 * reviews of each version, and the approvals a version created under review needs.
 */
export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  await db.schema.alterTable('policy_versions').addColumn('review_approvals', 'integer').execute();
  await db.schema
    .createTable('policy_review_settings')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('approvals', 'integer', (c) => c.notNull())
    .addColumn('updated_at', types.millis, (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('policy_reviews')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('principal_id', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('created_at', types.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_reviews_pk', ['tenant_id', 'version', 'principal_id'])
    .execute();
}
