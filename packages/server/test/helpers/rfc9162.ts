/**
 * RFC 9162 §2.1, written from its text for the server's tests and sharing nothing with the code
 * under test: MTH (§2.1.1), PATH (§2.1.3.1) and PROOF/SUBPROOF (§2.1.4.1) over a list D of 32-byte
 * inputs (the entries' `entryHash` bytes), with results memoised per range.
 */
import { createHash } from 'node:crypto';

function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** "k": the largest power of two smaller than n, for n > 1. */
function split(n: number): number {
  return 2 ** Math.ceil(Math.log2(n) - 1);
}

export class Rfc9162Tree {
  private readonly hashes = new Map<string, Uint8Array>();

  constructor(private readonly d: readonly Uint8Array[]) {}

  /** MTH(D[lo:hi]). */
  mth(lo: number, hi: number): Uint8Array {
    const key = `${lo}-${hi}`;
    let hash = this.hashes.get(key);
    if (hash) return hash;
    const n = hi - lo;
    if (n === 0) hash = sha256();
    else if (n === 1) hash = sha256(Uint8Array.of(0), this.d[lo] as Uint8Array);
    else hash = sha256(Uint8Array.of(1), this.mth(lo, lo + split(n)), this.mth(lo + split(n), hi));
    this.hashes.set(key, hash);
    return hash;
  }

  /** PATH(m, D[0:n]). */
  path(m: number, n: number, lo = 0): Uint8Array[] {
    if (n <= 1) return [];
    const k = split(n);
    return m < k
      ? [...this.path(m, k, lo), this.mth(lo + k, lo + n)]
      : [...this.path(m - k, n - k, lo + k), this.mth(lo, lo + k)];
  }

  /** PROOF(m, D[0:n]) = SUBPROOF(m, D[0:n], true), for 0 < m ≤ n. */
  proof(m: number, n: number, lo = 0, complete = true): Uint8Array[] {
    if (m === n) return complete ? [] : [this.mth(lo, lo + n)];
    const k = split(n);
    return m <= k
      ? [...this.proof(m, k, lo, complete), this.mth(lo + k, lo + n)]
      : [...this.proof(m - k, n - k, lo + k, false), this.mth(lo, lo + k)];
  }
}
