import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * The Merkle tree over each tenant's chain (contract §15): the hash of every complete subtree,
 * keyed by (tenant, level, index) as the SDK's `SubtreeAddress` names it, so that any proof reads
 * O(log n) rows. The head keeps the tree's size and its right edge (the frontier, hex hashes
 * concatenated) so that an append needs no extra read. Chains that exist before this migration have
 * `tree_size` 0 and are brought up to date on first use (docs/transparency.md).
 */
export async function up(db: Kysely<unknown>, _types: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('audit_tree_hashes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_tree_hashes_pk', ['tenant_id', 'level', 'idx'])
    .execute();
  await db.schema
    .alterTable('audit_heads')
    .addColumn('tree_size', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('audit_heads')
    .addColumn('tree_frontier', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
