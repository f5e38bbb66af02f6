import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * The witnesses of each tenant's transparency log (contract §15): the set and its quorum, each
 * witness with its push state, and the cosignatures the witnesses returned, by tree size.
 */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('audit_witness_sets')
    .addColumn('tenant_id', 'text', (c) => c.notNull().primaryKey().references('tenants.id'))
    .addColumn('quorum', 'integer', (c) => c.notNull())
    .addColumn('updated_at', millis, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('audit_witnesses')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('verifier_key', 'text', (c) => c.notNull())
    // The tree size (and its root, hex) the witness last cosigned for this log; 0 and null: none.
    .addColumn('cosigned_size', millis, (c) => c.notNull())
    .addColumn('cosigned_root', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', millis, (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('updated_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_witnesses_pk', ['tenant_id', 'name'])
    .execute();
  await db.schema
    .createTable('audit_witness_cosignatures')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('tree_size', millis, (c) => c.notNull())
    .addColumn('witness_name', 'text', (c) => c.notNull())
    .addColumn('root_hash', 'text', (c) => c.notNull())
    .addColumn('signature_line', 'text', (c) => c.notNull())
    .addColumn('cosigned_at', millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_witness_cosignatures_pk', ['tenant_id', 'tree_size', 'witness_name'])
    .execute();
}
