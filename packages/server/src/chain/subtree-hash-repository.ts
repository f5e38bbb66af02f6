import {
  appendLeaves,
  EMPTY_FRONTIER,
  hashFromHex,
  hashToHex,
  leafHash,
  type StoredHash,
  type SubtreeAddress,
  type TreeFrontier,
} from '@authority-runtime/sdk';
import { sql } from 'kysely';
import type { Executor } from '../storage/database.js';

/** Rows per insert: four parameters each, well under SQLite's limit of bound parameters. */
const INSERT_ROWS = 2_000;
/** Entries read per step when the tree catches up with a chain that grew without it. */
const CATCH_UP_ENTRIES = 5_000;

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

async function insertHashes(trx: Executor, tenantId: string, stored: readonly StoredHash[]): Promise<void> {
  for (let at = 0; at < stored.length; at += INSERT_ROWS) {
    await trx
      .insertInto('audit_tree_hashes')
      .values(
        stored.slice(at, at + INSERT_ROWS).map(({ address, hash }) => ({
          tenant_id: tenantId,
          level: address.level,
          idx: address.index,
          hash: hashToHex(hash),
        })),
      )
      .execute();
  }
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
 * own transaction, read by proofs (O(log n) rows per proof, one query).
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
   * The hashes stored at `addresses`, in that order (one query, one primary-key lookup per
   * address). Throws when one is missing: the callers only ask for subtrees of a tree the head says
   * exists.
   */
  async read(db: Executor, tenantId: string, addresses: readonly SubtreeAddress[]): Promise<Uint8Array[]> {
    if (addresses.length === 0) return [];
    const rows = await subtreeHashQuery(db, tenantId, addresses).execute();
    const byAddress = new Map(rows.map((row) => [`${row.level}/${row.idx}`, row.hash]));
    return addresses.map((a) => {
      const hex = byAddress.get(`${a.level}/${a.index}`);
      if (hex === undefined) throw new Error(`no stored hash at level ${a.level}, index ${a.index}`);
      return hashFromHex(hex);
    });
  },

  /** How many hashes the tenant's tree stores (a tree of n leaves stores 2n - popcount(n)). */
  async count(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('audit_tree_hashes')
      .select(sql<number>`count(*)`.as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
