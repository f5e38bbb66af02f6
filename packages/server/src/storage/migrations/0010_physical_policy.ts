import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/** Uploaded physical policies, versioned per tenant, at most one active. */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
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
}
