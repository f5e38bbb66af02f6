/**
 * A reference implementation of the Merkle tree of RFC 9162 §2.1, written straight from the RFC's
 * recursive definitions (MTH, PATH, PROOF/SUBPROOF) and independent of the code under test: it
 * hashes with node:crypto directly and shares nothing with src/transparency. Inputs D are the
 * 32-byte entry hashes; ranges are memoised per input list so that exhaustive tests stay fast.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};

/** The largest power of two smaller than n (n > 1), "k" in the RFC. */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export class ReferenceTree {
  private readonly memo = new Map<string, Uint8Array>();

  constructor(readonly inputs: readonly Uint8Array[]) {}

  /** MTH(D[lo:hi]). */
  mth(lo: number, hi: number): Uint8Array {
    const key = `${lo}:${hi}`;
    const cached = this.memo.get(key);
    if (cached) return cached;
    let hash: Uint8Array;
    const n = hi - lo;
    if (n === 0) hash = sha256();
    else if (n === 1) hash = sha256(new Uint8Array([0x00]), this.inputs[lo] as Uint8Array);
    else {
      const k = largestPowerOfTwoBelow(n);
      hash = sha256(new Uint8Array([0x01]), this.mth(lo, lo + k), this.mth(lo + k, hi));
    }
    this.memo.set(key, hash);
    return hash;
  }

  /** PATH(m, D[n]) for the first n inputs. */
  path(m: number, n: number): Uint8Array[] {
    return this.subPath(m, 0, n);
  }

  private subPath(m: number, lo: number, hi: number): Uint8Array[] {
    const n = hi - lo;
    if (n === 1) return [];
    const k = largestPowerOfTwoBelow(n);
    if (m - lo < k) return [...this.subPath(m, lo, lo + k), this.mth(lo + k, hi)];
    return [...this.subPath(m, lo + k, hi), this.mth(lo, lo + k)];
  }

  /** PROOF(m, D[n]) = SUBPROOF(m, D[n], true), for 0 < m < n. */
  proof(m: number, n: number): Uint8Array[] {
    return this.subProof(m, 0, n, true);
  }

  private subProof(m: number, lo: number, hi: number, b: boolean): Uint8Array[] {
    const n = hi - lo;
    if (m === n) return b ? [] : [this.mth(lo, hi)];
    const k = largestPowerOfTwoBelow(n);
    if (m <= k) return [...this.subProof(m, lo, lo + k, b), this.mth(lo + k, hi)];
    return [...this.subProof(m - k, lo + k, hi, false), this.mth(lo, lo + k)];
  }
}

/** 32-byte entry hashes, deterministic: SHA-256 of "entry <i>". */
export function entryHashes(count: number, salt = ''): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => sha256(new TextEncoder().encode(`${salt}entry ${i}`)));
}
