import {
  appendLeaves,
  EMPTY_FRONTIER,
  hashFromHex,
  hashToHex,
  leafHash,
  type StoredHash,
  type SubtreeAddress,
  type TreeFrontier,
  treeHashOfLeaves,
} from '@authority-runtime/sdk';
import { sql } from 'kysely';
import { compiledQuery } from '../storage/compiled-query.js';
import type { Executor } from '../storage/database.js';
import type { AuditTreeHashesTable } from '../storage/transparency-schema.js';

/** Rows per insert: four parameters each, well under SQLite's limit of bound parameters. */
const INSERT_ROWS = 2_000;
/** Entries read per step when the tree catches up with a chain that grew without it. */
const CATCH_UP_ENTRIES = 5_000;
/**
 * The lowest level whose subtree hashes are stored. A subtree below it (at most 2^4 = 16 leaves)
 * lies inside one aligned block of 16 entries and is hashed from their `entryHash` when a proof
 * needs it: an append stores about n/8 rows instead of 2n, and a proof reads at most a few blocks
 * of entries besides its stored hashes (docs/decisions.md, "Tree storage").
 */
export const STORED_FROM_LEVEL = 4;
const BLOCK = 2 ** STORED_FROM_LEVEL;

/** The frontier as the head stores it: its hashes in hex, concatenated. */
export function encodeFrontier(frontier: TreeFrontier): string {
  return frontier.hashes.map(hashToHex).join('');
}

/** The frontier of a tree of `treeSize` leaves from its stored text. */
export function decodeFrontier(treeSize: number, text: string): TreeFrontier {
  if (treeSize === 0) return EMPTY_FRONTIER;
  const hashes: Uint8Array[] = [];
  for (let at = 0; at < text.length; at += 64) hashes.push(hashFromHex(text.slice(at, at + 64)));
  return { treeSize, hashes };
}

const insertHashRows = compiledQuery(
  (db: Executor, rows: AuditTreeHashesTable[]) => db.insertInto('audit_tree_hashes').values(rows),
  (rows) => rows.length,
);

/** Stores the hashes at or above STORED_FROM_LEVEL; the lower ones are recomputed when read. */
async function insertHashes(trx: Executor, tenantId: string, hashes: readonly StoredHash[]): Promise<void> {
  const stored = hashes.filter(({ address }) => address.level >= STORED_FROM_LEVEL);
  for (let at = 0; at < stored.length; at += INSERT_ROWS) {
    await insertHashRows(
      trx,
      stored.slice(at, at + INSERT_ROWS).map(({ address, hash }) => ({
        tenant_id: tenantId,
        level: address.level,
        idx: address.index,
        hash: hashToHex(hash),
      })),
    );
  }
}

/**
 * The query reading the entry hashes of the aligned blocks of BLOCK entries numbered `blocks` (in
 * no order); as in subtreeHashQuery, every OR arm names the tenant, so each is one key range.
 */
export function entryBlockQuery(db: Executor, tenantId: string, blocks: readonly number[]) {
  return db
    .selectFrom('audit_entries')
    .select(['idx', 'entry_hash'])
    .where((eb) =>
      eb.or(
        blocks.map((block) =>
          eb.and([
            eb('tenant_id', '=', tenantId),
            eb('idx', '>=', block * BLOCK),
            eb('idx', '<', (block + 1) * BLOCK),
          ]),
        ),
      ),
    );
}

/** The hashes of subtrees below STORED_FROM_LEVEL, computed from the entries they cover. */
async function computedHashes(
  db: Executor,
  tenantId: string,
  addresses: readonly SubtreeAddress[],
): Promise<Map<string, Uint8Array>> {
  const computed = new Map<string, Uint8Array>();
  if (addresses.length === 0) return computed;
  const firstLeaf = (a: SubtreeAddress) => a.index * 2 ** a.level;
  const blocks = [...new Set(addresses.map((a) => Math.floor(firstLeaf(a) / BLOCK)))];
  const rows = await entryBlockQuery(db, tenantId, blocks).execute();
  const leaves = new Map(rows.map((row) => [row.idx, row.entry_hash]));
  for (const a of addresses) {
    const covered: Uint8Array[] = [];
    for (let i = firstLeaf(a); i < firstLeaf(a) + 2 ** a.level; i++) {
      const entryHash = leaves.get(i);
      if (entryHash === undefined) break;
      covered.push(leafHash(entryHash));
    }
    if (covered.length === 2 ** a.level) computed.set(`${a.level}/${a.index}`, treeHashOfLeaves(covered));
  }
  return computed;
}

/**
 * The query reading the hashes at `addresses` (in no order). Every OR arm names the whole key
 * (tenant, level, index), so that each is one primary-key lookup on SQLite and PostgreSQL alike:
 * with `tenant_id = ?` outside the OR, SQLite searches the key by tenant alone and filters every
 * row of the tenant's tree (8 ms a proof at 20,000 entries, growing with the chain).
 */
export function subtreeHashQuery(db: Executor, tenantId: string, addresses: readonly SubtreeAddress[]) {
  return db
    .selectFrom('audit_tree_hashes')
    .select(['level', 'idx', 'hash'])
    .where((eb) =>
      eb.or(
        addresses.map((a) =>
          eb.and([eb('tenant_id', '=', tenantId), eb('level', '=', a.level), eb('idx', '=', a.index)]),
        ),
      ),
    );
}

/**
 * The stored subtree hashes of each tenant's Merkle tree (contract §15): written in the append's
 * own transaction (from STORED_FROM_LEVEL up), read by proofs (O(log n) rows per proof, two queries).
 */
export const subtreeHashRepository = {
  /**
   * Adds leaves to the tenant's tree and stores every subtree hash they complete; returns the new
   * frontier. When the tree is behind the chain (a chain older than the tree, `treeSize` below
   * `chainLength`), the missing entries are added first, read from the chain in steps. Must run in
   * the transaction that holds the tenant's chain head.
   */
  async grow(
    trx: Executor,
    tenantId: string,
    tree: TreeFrontier,
    chainLength: number,
    entryHashes: readonly string[],
  ): Promise<TreeFrontier> {
    if (tree.treeSize > chainLength) {
      throw new Error(`the tree of ${tenantId} has ${tree.treeSize} leaves, its chain ${chainLength}`);
    }
    let frontier = tree;
    while (frontier.treeSize < chainLength) {
      const rows = await trx
        .selectFrom('audit_entries')
        .select(['idx', 'entry_hash'])
        .where('tenant_id', '=', tenantId)
        .where('idx', '>=', frontier.treeSize)
        .where('idx', '<', Math.min(chainLength, frontier.treeSize + CATCH_UP_ENTRIES))
        .orderBy('idx')
        .execute();
      if (rows[0]?.idx !== frontier.treeSize || rows.some((row, i) => row.idx !== frontier.treeSize + i)) {
        throw new Error(`the chain of ${tenantId} has a gap at or after index ${frontier.treeSize}`);
      }
      const grown = appendLeaves(
        frontier,
        rows.map((row) => leafHash(row.entry_hash)),
      );
      await insertHashes(trx, tenantId, grown.stored);
      frontier = grown.frontier;
    }
    if (entryHashes.length === 0) return frontier;
    const grown = appendLeaves(frontier, entryHashes.map(leafHash));
    await insertHashes(trx, tenantId, grown.stored);
    return grown.frontier;
  },

  /**
   * The hashes of the subtrees at `addresses`, in that order: stored ones in one query, those below
   * STORED_FROM_LEVEL hashed from their entries (one more query). Throws when one is missing: the
   * callers only ask for subtrees of a tree the head says exists.
   */
  async read(db: Executor, tenantId: string, addresses: readonly SubtreeAddress[]): Promise<Uint8Array[]> {
    if (addresses.length === 0) return [];
    const stored = addresses.filter((a) => a.level >= STORED_FROM_LEVEL);
    const rows = stored.length === 0 ? [] : await subtreeHashQuery(db, tenantId, stored).execute();
    const byAddress = await computedHashes(
      db,
      tenantId,
      addresses.filter((a) => a.level < STORED_FROM_LEVEL),
    );
    for (const row of rows) byAddress.set(`${row.level}/${row.idx}`, hashFromHex(row.hash));
    return addresses.map((a) => {
      const hash = byAddress.get(`${a.level}/${a.index}`);
      if (hash === undefined) throw new Error(`no stored hash at level ${a.level}, index ${a.index}`);
      return hash;
    });
  },

  /**
   * How many hashes the tenant's tree stores: one per complete subtree at or above
   * STORED_FROM_LEVEL, the sum over those levels l of floor(n / 2^l) for a tree of n leaves.
   */
  async count(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('audit_tree_hashes')
      .select(sql<number>`count(*)`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('level', '>=', STORED_FROM_LEVEL)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
