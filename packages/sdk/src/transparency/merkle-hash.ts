import { createHash } from 'node:crypto';
import { assertHash, HASH_SIZE, hashFromHex } from './encoding.js';
import { TransparencyFormatError } from './errors.js';

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

/**
 * The hash of the empty tree (RFC 9162 §2.1.1): SHA-256 of nothing. A fresh copy on every call.
 *
 * @example
 * ```ts
 * import { emptyTreeHash, hashToHex } from '@authority-runtime/sdk';
 *
 * hashToHex(emptyTreeHash()); // 'e3b0c442…b855'
 * ```
 */
export function emptyTreeHash(): Uint8Array {
  return new Uint8Array(createHash('sha256').digest());
}

/**
 * The Merkle leaf hash of an audit entry (contract §15): SHA-256(0x00 ‖ the 32 bytes of its
 * `entryHash`). Takes the `entryHash` as the chain writes it (64 lower-case hex digits) or as its
 * 32 bytes; throws {@link TransparencyFormatError} (`HASH_MALFORMED`) on anything else.
 *
 * @example
 * ```ts
 * import { leafHash } from '@authority-runtime/sdk';
 *
 * const leaf = leafHash(entry.entryHash);
 * ```
 */
export function leafHash(entryHash: string | Uint8Array): Uint8Array {
  const bytes = typeof entryHash === 'string' ? hashFromHex(entryHash) : entryHash;
  if (!(bytes instanceof Uint8Array) || bytes.length !== HASH_SIZE) {
    throw new TransparencyFormatError('HASH_MALFORMED', `an entry hash must be ${HASH_SIZE} bytes`);
  }
  return new Uint8Array(createHash('sha256').update(LEAF_PREFIX).update(bytes).digest());
}

/**
 * The hash of an interior node (RFC 9162 §2.1.1): SHA-256(0x01 ‖ left ‖ right).
 *
 * @example
 * ```ts
 * import { leafHash, nodeHash } from '@authority-runtime/sdk';
 *
 * const root = nodeHash(leafHash(entries[0].entryHash), leafHash(entries[1].entryHash));
 * ```
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  assertHash(left, 'left');
  assertHash(right, 'right');
  return new Uint8Array(createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest());
}

/**
 * @internal
 * The largest power of two strictly smaller than `n` (n ≥ 2): the split point `k` of RFC 9162
 * §2.1.1. Plain arithmetic, so sizes beyond 2^32 are exact.
 */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
