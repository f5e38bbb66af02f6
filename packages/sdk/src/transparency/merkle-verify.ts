import { isHash, sameBytes } from './encoding.js';
import { nodeHash } from './merkle-hash.js';

/**
 * Why a Merkle proof was refused:
 *
 * - `INVALID_SIZES`: the index or sizes are not integers with 0 ≤ index < treeSize (inclusion),
 *   or 1 ≤ fromSize ≤ toSize (consistency).
 * - `MALFORMED_HASH`: a proof element or a given hash is not 32 bytes.
 * - `PROOF_TOO_LONG`: the proof has more elements than the sizes allow.
 * - `PROOF_TOO_SHORT`: the proof has fewer elements than the sizes require.
 * - `ROOT_MISMATCH`: the proof leads to another root hash than the one given.
 */
export const PROOF_FAILURE_REASONS = [
  'INVALID_SIZES',
  'MALFORMED_HASH',
  'PROOF_TOO_LONG',
  'PROOF_TOO_SHORT',
  'ROOT_MISMATCH',
] as const;

/** One of {@link PROOF_FAILURE_REASONS}. */
export type ProofFailureReason = (typeof PROOF_FAILURE_REASONS)[number];

/** The outcome of {@link verifyInclusionProof} and {@link verifyConsistencyProof}. */
export type ProofVerification =
  | { valid: true }
  | { valid: false; reason: ProofFailureReason; detail: string };

/** What {@link verifyInclusionProof} checks. */
export interface InclusionProofInput {
  /** The leaf's 0-based index (the audit entry's `index`). */
  index: number;
  treeSize: number;
  /** The leaf hash, see {@link leafHash}. */
  leafHash: Uint8Array;
  /** The audit path, from the leaf's sibling up. */
  proof: readonly Uint8Array[];
  /** The root hash of the tree of `treeSize` leaves, e.g. from a verified checkpoint. */
  rootHash: Uint8Array;
}

/** What {@link verifyConsistencyProof} checks. */
export interface ConsistencyProofInput {
  fromSize: number;
  toSize: number;
  fromRoot: Uint8Array;
  toRoot: Uint8Array;
  proof: readonly Uint8Array[];
}

const VALID: ProofVerification = { valid: true };

function fail(reason: ProofFailureReason, detail: string): ProofVerification {
  return { valid: false, reason, detail };
}

const isOdd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

function malformed(hashes: readonly unknown[]): string | undefined {
  const at = hashes.findIndex((hash) => !isHash(hash));
  return at < 0 ? undefined : `element ${at} is not a 32-byte hash`;
}

/**
 * Checks a Merkle inclusion proof exactly as RFC 9162 §2.1.3.2 describes. Never throws: bad input
 * is a failed verification with its reason.
 *
 * @example
 * ```ts
 * import { hashFromHex, leafHash, verifyInclusionProof } from '@authority-runtime/sdk';
 *
 * const outcome = verifyInclusionProof({
 *   index: entry.index,
 *   treeSize: checkpoint.size,
 *   leafHash: leafHash(entry.entryHash),
 *   proof: body.proof.map(hashFromHex),
 *   rootHash: checkpoint.rootHash,
 * });
 * if (!outcome.valid) throw new Error(`not in the log: ${outcome.reason}`);
 * ```
 */
export function verifyInclusionProof(input: InclusionProofInput): ProofVerification {
  const { index, treeSize, proof } = input;
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) {
    return fail('INVALID_SIZES', `index ${index} is not within a tree of size ${treeSize}`);
  }
  const bad = malformed([input.leafHash, input.rootHash]) ?? malformed(proof);
  if (bad !== undefined) return fail('MALFORMED_HASH', bad);

  let fn = index;
  let sn = treeSize - 1;
  let r = input.leafHash;
  for (const [used, p] of proof.entries()) {
    if (sn === 0) {
      return fail('PROOF_TOO_LONG', `${proof.length} elements where this index and size need ${used}`);
    }
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return fail('PROOF_TOO_SHORT', `${proof.length} elements do not reach the root`);
  if (!sameBytes(r, input.rootHash)) return fail('ROOT_MISMATCH', 'the proof leads to another root hash');
  return VALID;
}

/**
 * Checks a Merkle consistency proof exactly as RFC 9162 §2.1.4.2 describes, for 0 < fromSize <
 * toSize; when both sizes are equal, the proof must be empty and the two roots equal (the answer
 * of `GET /audit/:tenantId/proof/consistency` for `from = to`). Never throws.
 *
 * @example
 * ```ts
 * import { verifyConsistencyProof } from '@authority-runtime/sdk';
 *
 * const outcome = verifyConsistencyProof({
 *   fromSize: old.size,
 *   fromRoot: old.rootHash,
 *   toSize: latest.size,
 *   toRoot: latest.rootHash,
 *   proof,
 * });
 * if (!outcome.valid) console.error(`the log forked or shrank: ${outcome.reason}`);
 * ```
 */
export function verifyConsistencyProof(input: ConsistencyProofInput): ProofVerification {
  const { fromSize: first, toSize: second, proof } = input;
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) {
    return fail('INVALID_SIZES', `sizes ${first} and ${second} are not 1 ≤ from ≤ to`);
  }
  const bad = malformed([input.fromRoot, input.toRoot]) ?? malformed(proof);
  if (bad !== undefined) return fail('MALFORMED_HASH', bad);

  if (first === second) {
    if (proof.length > 0) return fail('PROOF_TOO_LONG', 'a proof between equal sizes is empty');
    if (!sameBytes(input.fromRoot, input.toRoot)) {
      return fail('ROOT_MISMATCH', `two different roots for tree size ${first}`);
    }
    return VALID;
  }
  if (proof.length === 0) return fail('PROOF_TOO_SHORT', 'the proof is empty');

  const path = isPowerOfTwo(first) ? [input.fromRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return fail('PROOF_TOO_LONG', 'the proof has more elements than the sizes allow');
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return fail('PROOF_TOO_SHORT', 'the proof does not reach the new root');
  if (!sameBytes(fr, input.fromRoot)) {
    return fail('ROOT_MISMATCH', `the proof does not lead to the root of size ${first}`);
  }
  if (!sameBytes(sr, input.toRoot)) {
    return fail('ROOT_MISMATCH', `the proof does not lead to the root of size ${second}`);
  }
  return VALID;
}

function isPowerOfTwo(n: number): boolean {
  let p = 1;
  while (p < n) p *= 2;
  return p === n;
}
