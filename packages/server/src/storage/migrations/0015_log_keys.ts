import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * Each tenant's transparency-log key and its signed checkpoint notes (contract §15). The key's
 * origin is fixed when the key is created; its Ed25519 seed is sealed under the master key like the
 * token keys. One note per (tenant, tree size): the text the log signed, so a reader gets exactly
 * the bytes that were signed.
 */
export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('log_keys')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', types.millis, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('log_checkpoints')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('tree_size', 'integer', (c) => c.notNull())
    .addColumn('root_hash', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_at', types.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint('log_checkpoints_pk', ['tenant_id', 'tree_size'])
    .execute();
}
