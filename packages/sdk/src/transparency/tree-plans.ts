import { assertHash, assertSize } from './encoding.js';
import { emptyTreeHash, nodeHash, splitPoint } from './merkle-hash.js';

/**
 * Where a stored hash lives: the root of the complete subtree of `2^level` leaves that starts at
 * leaf `index × 2^level`. Level 0 holds the leaf hashes (`index` = the entry's index); the node at
 * (level, index) is `nodeHash((level - 1, 2·index), (level - 1, 2·index + 1))`. A subtree's hash is
 * stored once its last leaf is appended and never changes afterwards, so a server can keep every
 * one in a table keyed by (tenant, level, index) and answer any proof from it.
 */
export interface SubtreeAddress {
  readonly level: number;
  readonly index: number;
}

/**
 * What a server reads, and how it turns what it read into an answer: fetch the hashes at
 * `addresses` (O(log n) of them, in one query), then call `assemble` with them in the same order.
 */
export interface HashPlan<T> {
  readonly addresses: readonly SubtreeAddress[];
  /**
   * Builds the answer from the hashes stored at `addresses`, in that order. Throws a `RangeError`
   * when their number differs or one is not 32 bytes (a storage fault, never the caller's input).
   */
  assemble(hashes: readonly Uint8Array[]): T;
}

type Range = readonly [lo: number, hi: number];

function log2(powerOfTwo: number): number {
  let level = 0;
  for (let width = 1; width < powerOfTwo; width *= 2) level++;
  return level;
}

/**
 * @internal
 * The complete subtrees whose hashes make up MTH(D[lo:hi]) for a range the RFC's recursion visits,
 * left to right: the left subtree of each split while the rest is not a power of two, then the rest.
 */
export function rangeAddresses(lo: number, hi: number): SubtreeAddress[] {
  const addresses: SubtreeAddress[] = [];
  let start = lo;
  while (start < hi) {
    const size = hi - start;
    const split = splitPoint(size);
    const width = split * 2 === size || size === 1 ? size : split;
    addresses.push({ level: log2(width), index: start / width });
    start += width;
  }
  return addresses;
}

/** @internal MTH of a range from the hashes of {@link rangeAddresses}: a fold from the right. */
export function foldRange(hashes: readonly Uint8Array[]): Uint8Array {
  let hash = hashes[hashes.length - 1];
  if (hash === undefined) return emptyTreeHash();
  for (let i = hashes.length - 2; i >= 0; i--) hash = nodeHash(hashes[i] as Uint8Array, hash);
  return hash;
}

const key = (address: SubtreeAddress) => `${address.level}/${address.index}`;

function planRanges<T>(ranges: readonly Range[], finish: (hashes: Uint8Array[]) => T): HashPlan<T> {
  const perRange = ranges.map(([lo, hi]) => rangeAddresses(lo, hi));
  const unique = new Map<string, SubtreeAddress>();
  for (const address of perRange.flat()) unique.set(key(address), address);
  const addresses = [...unique.values()];
  return {
    addresses,
    assemble(hashes) {
      if (hashes.length !== addresses.length) {
        throw new RangeError(`expected ${addresses.length} stored hashes, got ${hashes.length}`);
      }
      const byKey = new Map<string, Uint8Array>();
      addresses.forEach((address, i) => {
        const hash = hashes[i];
        assertHash(hash, `the stored hash at level ${address.level}, index ${address.index}`);
        byKey.set(key(address), hash);
      });
      return finish(perRange.map((list) => foldRange(list.map((a) => byKey.get(key(a)) as Uint8Array))));
    },
  };
}

function inclusionRanges(m: number, lo: number, hi: number): Range[] {
  if (hi - lo === 1) return [];
  const k = splitPoint(hi - lo);
  if (m < lo + k) return [...inclusionRanges(m, lo, lo + k), [lo + k, hi]];
  return [...inclusionRanges(m, lo + k, hi), [lo, lo + k]];
}

function consistencyRanges(m: number, lo: number, hi: number, complete: boolean): Range[] {
  if (m === hi) return complete ? [] : [[lo, hi]];
  const k = splitPoint(hi - lo);
  if (m <= lo + k) return [...consistencyRanges(m, lo, lo + k, complete), [lo + k, hi]];
  return [...consistencyRanges(m, lo + k, hi, false), [lo, lo + k]];
}

/**
 * The stored hashes that give the root hash of the tree of `treeSize` leaves (any size up to the
 * current one): one per 1 bit of `treeSize`. Size 0 reads nothing and gives {@link emptyTreeHash}.
 *
 * @example
 * ```ts
 * import { planTreeHash } from '@authority-runtime/sdk';
 *
 * const plan = planTreeHash(size);
 * const rootHash = plan.assemble(await store.read(tenantId, plan.addresses));
 * ```
 */
export function planTreeHash(treeSize: number): HashPlan<Uint8Array> {
  assertSize(treeSize, 'treeSize');
  return planRanges(treeSize === 0 ? [] : [[0, treeSize]], (roots) => roots[0] ?? emptyTreeHash());
}

/**
 * The stored hashes behind the inclusion proof of leaf `index` in the tree of `treeSize` leaves
 * (RFC 9162 §2.1.3.1), at most 2·log2(treeSize) of them; `assemble` gives the audit path, from the
 * leaf's sibling up. Throws a `RangeError` unless 0 ≤ index < treeSize.
 *
 * @example
 * ```ts
 * import { hashToHex, planInclusionProof } from '@authority-runtime/sdk';
 *
 * const plan = planInclusionProof(index, treeSize);
 * const proof = plan.assemble(await store.read(tenantId, plan.addresses)).map(hashToHex);
 * ```
 */
export function planInclusionProof(index: number, treeSize: number): HashPlan<Uint8Array[]> {
  assertSize(treeSize, 'treeSize', 1);
  assertSize(index, 'index');
  if (index >= treeSize) throw new RangeError(`index ${index} is not below treeSize ${treeSize}`);
  return planRanges(inclusionRanges(index, 0, treeSize), (path) => path);
}

/**
 * The stored hashes behind the consistency proof from the tree of `fromSize` leaves to the tree of
 * `toSize` leaves (RFC 9162 §2.1.4.1); `assemble` gives the proof. Equal sizes give the empty proof.
 * Throws a `RangeError` unless 1 ≤ fromSize ≤ toSize.
 *
 * @example
 * ```ts
 * import { planConsistencyProof } from '@authority-runtime/sdk';
 *
 * const plan = planConsistencyProof(from, to);
 * const proof = plan.assemble(await store.read(tenantId, plan.addresses));
 * ```
 */
export function planConsistencyProof(fromSize: number, toSize: number): HashPlan<Uint8Array[]> {
  assertSize(fromSize, 'fromSize', 1);
  assertSize(toSize, 'toSize', 1);
  if (fromSize > toSize) throw new RangeError(`fromSize ${fromSize} is above toSize ${toSize}`);
  return planRanges(consistencyRanges(fromSize, 0, toSize, true), (proof) => proof);
}
