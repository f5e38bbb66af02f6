import { assertHash, assertSize } from './encoding.js';
import { nodeHash } from './merkle-hash.js';
import { foldRange, type HashPlan, rangeAddresses, type SubtreeAddress } from './tree-plans.js';

/**
 * The right edge of a tree: the hashes of its largest complete subtrees, left to right (one per 1
 * bit of `treeSize`, largest first). It is all an append needs, and its fold is the root hash. A
 * server may read it with {@link planFrontier} or keep it beside the chain head.
 */
export interface TreeFrontier {
  readonly treeSize: number;
  readonly hashes: readonly Uint8Array[];
}

/** A hash that became storable: the complete subtree at `address` now has all its leaves. */
export interface StoredHash {
  readonly address: SubtreeAddress;
  readonly hash: Uint8Array;
}

/** The outcome of {@link appendLeaves}. */
export interface AppendResult {
  /** Every hash that became storable, in order: a leaf, then the subtrees it completed. */
  readonly stored: StoredHash[];
  /** The frontier of the grown tree, for the next append. */
  readonly frontier: TreeFrontier;
  /** The root hash of the grown tree. */
  readonly rootHash: Uint8Array;
}

/**
 * The stored hashes that make up the frontier of the tree of `treeSize` leaves.
 *
 * @example
 * ```ts
 * import { planFrontier } from '@authority-runtime/sdk';
 *
 * const plan = planFrontier(chainLength);
 * const frontier = plan.assemble(await store.read(tenantId, plan.addresses));
 * ```
 */
export function planFrontier(treeSize: number): HashPlan<TreeFrontier> {
  assertSize(treeSize, 'treeSize');
  const addresses = rangeAddresses(0, treeSize);
  return {
    addresses,
    assemble(hashes) {
      return checkedFrontier({ treeSize, hashes: [...hashes] });
    },
  };
}

/** The frontier of the empty tree. */
export const EMPTY_FRONTIER: TreeFrontier = Object.freeze({ treeSize: 0, hashes: Object.freeze([]) });

function checkedFrontier(frontier: TreeFrontier): TreeFrontier {
  assertSize(frontier.treeSize, 'frontier.treeSize');
  const expected = rangeAddresses(0, frontier.treeSize).length;
  if (frontier.hashes.length !== expected) {
    throw new RangeError(
      `a frontier of size ${frontier.treeSize} has ${expected} hashes, not ${frontier.hashes.length}`,
    );
  }
  for (const [i, hash] of frontier.hashes.entries()) assertHash(hash, `frontier hash ${i}`);
  return frontier;
}

/**
 * Appends leaves to a tree whose frontier is known, and says which hashes became storable: each
 * leaf's own hash at level 0, then one per complete subtree it closes (on average about two hashes
 * per leaf). Handles a whole batch at once, so one group-committed transaction stores all of them.
 *
 * @example
 * ```ts
 * import { appendLeaves, leafHash } from '@authority-runtime/sdk';
 *
 * const { stored, frontier, rootHash } = appendLeaves(head.frontier, batch.map((e) => leafHash(e.entryHash)));
 * await tx.insertInto('audit_tree_hashes').values(stored.map((s) => row(tenantId, s))).execute();
 * ```
 */
export function appendLeaves(frontier: TreeFrontier, leafHashes: readonly Uint8Array[]): AppendResult {
  checkedFrontier(frontier);
  for (const [i, hash] of leafHashes.entries()) assertHash(hash, `leaf hash ${i}`);
  const stack = rangeAddresses(0, frontier.treeSize).map((address, i) => ({
    ...address,
    hash: frontier.hashes[i] as Uint8Array,
  }));
  const stored: StoredHash[] = [];
  for (const [offset, hash] of leafHashes.entries()) {
    let node = { level: 0, index: frontier.treeSize + offset, hash };
    stored.push({ address: { level: 0, index: node.index }, hash });
    for (let left = stack.at(-1); left !== undefined && left.level === node.level; left = stack.at(-1)) {
      stack.pop();
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(left.hash, node.hash) };
      stored.push({ address: { level: node.level, index: node.index }, hash: node.hash });
    }
    stack.push(node);
  }
  const hashes = stack.map((node) => node.hash);
  return {
    stored,
    frontier: { treeSize: frontier.treeSize + leafHashes.length, hashes },
    rootHash: foldRange(hashes),
  };
}

/**
 * The root hash of the tree over `leafHashes` (RFC 9162 MTH), in one pass: what a monitor or an
 * auditor recomputes from a full export (feed a long export to {@link appendLeaves} in chunks).
 *
 * @example
 * ```ts
 * import { leafHash, treeHashOfLeaves } from '@authority-runtime/sdk';
 *
 * const root = treeHashOfLeaves(entries.map((entry) => leafHash(entry.entryHash)));
 * ```
 */
export function treeHashOfLeaves(leafHashes: readonly Uint8Array[]): Uint8Array {
  return appendLeaves(EMPTY_FRONTIER, leafHashes).rootHash;
}
