import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  appendLeaves,
  EMPTY_FRONTIER,
  emptyTreeHash,
  type HashPlan,
  hashToHex,
  leafHash,
  planConsistencyProof,
  planFrontier,
  planInclusionProof,
  planTreeHash,
  type SubtreeAddress,
  type TreeFrontier,
  treeHashOfLeaves,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '../../src/index.js';
import { entryHashes, ReferenceTree } from './rfc9162-reference.js';

const hex = (hashes: readonly Uint8Array[]) => hashes.map(hashToHex);

/** A server's table of stored hashes, filled only through appendLeaves, read only by address. */
class HashStore {
  readonly rows = new Map<string, Uint8Array>();
  frontier: TreeFrontier = EMPTY_FRONTIER;

  append(entries: readonly Uint8Array[]): void {
    const result = appendLeaves(
      this.frontier,
      entries.map((entry) => leafHash(entry)),
    );
    for (const { address, hash } of result.stored) {
      const key = `${address.level}/${address.index}`;
      assert.ok(!this.rows.has(key), `${key} stored twice`);
      this.rows.set(key, hash);
    }
    this.frontier = result.frontier;
  }

  read(addresses: readonly SubtreeAddress[]): Uint8Array[] {
    return addresses.map(({ level, index }) => {
      const hash = this.rows.get(`${level}/${index}`);
      assert.ok(hash, `the plan asked for ${level}/${index}, which is not stored`);
      return hash;
    });
  }

  run<T>(plan: HashPlan<T>): T {
    return plan.assemble(this.read(plan.addresses));
  }
}

const SMALL = 300;
const inputs = entryHashes(SMALL);
const reference = new ReferenceTree(inputs);
const store = new HashStore();
for (let i = 0; i < SMALL; i += 7) store.append(inputs.slice(i, i + 7));

describe('Merkle tree against the RFC 9162 reference', () => {
  it('every stored hash is the MTH of the complete subtree its address names', () => {
    for (const [key, hash] of store.rows) {
      const [level, index] = key.split('/').map(Number) as [number, number];
      const width = 2 ** level;
      assert.equal(hashToHex(hash), hashToHex(reference.mth(index * width, (index + 1) * width)), key);
    }
  });

  it('stores about two hashes per leaf (exactly 2n minus the number of 1 bits of n)', () => {
    const ones = SMALL.toString(2).replaceAll('0', '').length;
    assert.equal(store.rows.size, 2 * SMALL - ones);
  });

  it('gives the root of every size up to the current one, and of the empty tree', () => {
    assert.equal(hashToHex(store.run(planTreeHash(0))), hashToHex(emptyTreeHash()));
    assert.equal(planTreeHash(0).addresses.length, 0);
    for (let n = 1; n <= SMALL; n++) {
      const plan = planTreeHash(n);
      assert.equal(plan.addresses.length, n.toString(2).replaceAll('0', '').length);
      assert.equal(hashToHex(store.run(plan)), hashToHex(reference.mth(0, n)), `size ${n}`);
    }
  });

  it('builds every inclusion proof of every tree up to 64 leaves, and the reference verifies', () => {
    for (let n = 1; n <= 64; n++) {
      for (let m = 0; m < n; m++) {
        const proof = store.run(planInclusionProof(m, n));
        assert.deepEqual(hex(proof), hex(reference.path(m, n)), `PATH(${m}, D[${n}])`);
        const outcome = verifyInclusionProof({
          index: m,
          treeSize: n,
          leafHash: leafHash(inputs[m] as Uint8Array),
          proof,
          rootHash: reference.mth(0, n),
        });
        assert.deepEqual(outcome, { valid: true });
      }
    }
  });

  it('builds every consistency proof between trees up to 64 leaves', () => {
    for (let n = 1; n <= 64; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = store.run(planConsistencyProof(m, n));
        assert.deepEqual(hex(proof), m === n ? [] : hex(reference.proof(m, n)), `PROOF(${m}, D[${n}])`);
        const outcome = verifyConsistencyProof({
          fromSize: m,
          toSize: n,
          fromRoot: reference.mth(0, m),
          toRoot: reference.mth(0, n),
          proof,
        });
        assert.deepEqual(outcome, { valid: true }, `${m} → ${n}`);
      }
    }
  });

  it('matches the reference for random indices and sizes of every tree up to 300 leaves', () => {
    for (let n = 65; n <= SMALL; n++) {
      fc.assert(
        fc.property(fc.nat(n - 1), fc.integer({ min: 1, max: n }), (m, from) => {
          const path = store.run(planInclusionProof(m, n));
          assert.deepEqual(hex(path), hex(reference.path(m, n)));
          const proof = store.run(planConsistencyProof(from, n));
          assert.deepEqual(hex(proof), from === n ? [] : hex(reference.proof(from, n)));
          assert.ok(
            verifyInclusionProof({
              index: m,
              treeSize: n,
              leafHash: leafHash(inputs[m] as Uint8Array),
              proof: path,
              rootHash: reference.mth(0, n),
            }).valid,
          );
          assert.ok(
            verifyConsistencyProof({
              fromSize: from,
              toSize: n,
              fromRoot: reference.mth(0, from),
              toRoot: reference.mth(0, n),
              proof,
            }).valid,
          );
        }),
        { numRuns: 8 },
      );
    }
  });

  it('matches the reference on random larger trees appended in random batches', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 301, max: 3000 }),
        fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 20 }),
        fc.nat(),
        (size, batches, seed) => {
          const leaves = entryHashes(size, `s${seed}`);
          const ref = new ReferenceTree(leaves);
          const big = new HashStore();
          for (let i = 0, b = 0; i < size; b++) {
            const take = batches[b % batches.length] as number;
            big.append(leaves.slice(i, i + take));
            i += take;
          }
          assert.equal(big.frontier.treeSize, size);
          assert.equal(hashToHex(big.run(planTreeHash(size))), hashToHex(ref.mth(0, size)));
          const m = seed % size;
          const from = 1 + (seed % size);
          assert.deepEqual(hex(big.run(planInclusionProof(m, size))), hex(ref.path(m, size)));
          assert.deepEqual(
            hex(big.run(planConsistencyProof(from, size))),
            from === size ? [] : hex(ref.proof(from, size)),
          );
          assert.equal(
            hashToHex(treeHashOfLeaves(leaves.map((l) => leafHash(l)))),
            hashToHex(ref.mth(0, size)),
          );
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('appending', () => {
  it('gives the same hashes, frontier and root whatever the batching', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }), (cuts) => {
        const leaves = inputs
          .slice(
            0,
            cuts.reduce((a, b) => a + b, 0),
          )
          .map((e) => leafHash(e));
        let frontier = EMPTY_FRONTIER;
        const stored: string[] = [];
        let at = 0;
        let root = emptyTreeHash();
        for (const cut of cuts) {
          const result = appendLeaves(frontier, leaves.slice(at, at + cut));
          stored.push(
            ...result.stored.map((s) => `${s.address.level}/${s.address.index}=${hashToHex(s.hash)}`),
          );
          frontier = result.frontier;
          root = result.rootHash;
          at += cut;
        }
        const once = appendLeaves(EMPTY_FRONTIER, leaves);
        assert.deepEqual(
          stored,
          once.stored.map((s) => `${s.address.level}/${s.address.index}=${hashToHex(s.hash)}`),
        );
        assert.deepEqual(hex(frontier.hashes), hex(once.frontier.hashes));
        assert.equal(hashToHex(root), hashToHex(reference.mth(0, leaves.length)));
      }),
    );
  });

  it('reads the frontier back from the stored hashes', () => {
    for (let n = 0; n <= SMALL; n++) {
      const partial = new HashStore();
      partial.append(inputs.slice(0, n));
      const frontier = store.run(planFrontier(n));
      assert.deepEqual(hex(frontier.hashes), hex(partial.frontier.hashes), `size ${n}`);
    }
  });

  it('refuses a frontier of the wrong shape and hashes of the wrong size', () => {
    assert.throws(() => appendLeaves({ treeSize: 3, hashes: [emptyTreeHash()] }, []), RangeError);
    assert.throws(() => appendLeaves(EMPTY_FRONTIER, [new Uint8Array(31)]), RangeError);
    assert.throws(() => planFrontier(2).assemble([emptyTreeHash(), emptyTreeHash()]), RangeError);
    assert.throws(() => planTreeHash(5).assemble([emptyTreeHash()]), RangeError);
    assert.throws(() => planTreeHash(1).assemble([new Uint8Array(32 + 1)]), RangeError);
  });
});

describe('plans at any size', () => {
  const addressBound = (n: number) => 2 * Math.ceil(Math.log2(n)) + 1;

  it('read O(log n) complete subtrees inside the tree, for sizes up to 2^53 - 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, f) => {
          const m = Math.min(n - 1, Math.floor(f * n));
          const from = Math.max(1, Math.min(n, Math.ceil(f * n)));
          for (const plan of [
            planTreeHash(n),
            planInclusionProof(m, n),
            planConsistencyProof(from, n),
            planFrontier(n),
          ]) {
            assert.ok(
              plan.addresses.length <= addressBound(n),
              `${plan.addresses.length} reads for size ${n}`,
            );
            const keys = new Set(plan.addresses.map((a) => `${a.level}/${a.index}`));
            assert.equal(keys.size, plan.addresses.length, 'no address is read twice');
            for (const { level, index } of plan.addresses) {
              assert.ok(Number.isSafeInteger(index) && index >= 0 && level >= 0 && level <= 53);
              assert.ok((index + 1) * 2 ** level <= n, `${level}/${index} is not complete in a tree of ${n}`);
            }
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuse sizes and indices out of range as a programming error', () => {
    assert.throws(() => planInclusionProof(3, 3), RangeError);
    assert.throws(() => planInclusionProof(-1, 3), RangeError);
    assert.throws(() => planInclusionProof(0, 0), RangeError);
    assert.throws(() => planConsistencyProof(0, 3), RangeError);
    assert.throws(() => planConsistencyProof(4, 3), RangeError);
    assert.throws(() => planTreeHash(-1), RangeError);
    assert.throws(() => planTreeHash(2 ** 53), RangeError);
    assert.throws(() => planTreeHash(1.5), RangeError);
  });
});
