// The shared transparency vectors of sdks/test-vectors/transparency.json, checked with this SDK. The
// Python and Go SDKs check the same file, so that the three verifiers of contract §15 accept and
// refuse exactly the same proofs and checkpoints, for the same reasons.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  emptyTreeHash,
  leafHash,
  treeHashOfLeaves,
  verifyCheckpoint,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '../../src/index.js';

interface Expectation {
  valid: boolean;
  reason: string | null;
}

const vectors = JSON.parse(
  readFileSync(new URL('../../../../sdks/test-vectors/transparency.json', import.meta.url), 'utf8'),
) as {
  entryHashes: string[];
  leafHashes: string[];
  roots: string[];
  inclusion: {
    name: string;
    index: number;
    treeSize: number;
    leafHash: string;
    proof: string[];
    rootHash: string;
    expected: Expectation;
  }[];
  consistency: {
    name: string;
    fromSize: number;
    toSize: number;
    fromRoot: string;
    toRoot: string;
    proof: string[];
    expected: Expectation;
  }[];
  checkpoints: {
    logKey: string;
    vectors: {
      name: string;
      note: string;
      witnesses: string[];
      quorum: number;
      expected: Expectation;
      checkpoint?: { origin: string; size: number; rootHash: string };
      cosigners?: { name: string; time: number }[];
    }[];
  };
};

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const got = (outcome: { valid: true } | { valid: false; reason: string }) =>
  outcome.valid ? { valid: true, reason: null } : { valid: false, reason: outcome.reason };

describe('shared vectors: the Merkle tree', () => {
  it('hashes every leaf and every prefix of the chain as the vectors say', () => {
    const leaves = vectors.entryHashes.map((h) => leafHash(h));
    assert.deepEqual(leaves.map(hex), vectors.leafHashes);
    assert.equal(vectors.roots[0], hex(emptyTreeHash()));
    for (let n = 1; n < vectors.roots.length; n++) {
      assert.equal(hex(treeHashOfLeaves(leaves.slice(0, n))), vectors.roots[n], `root of ${n}`);
    }
  });
});

describe('shared vectors: inclusion proofs', () => {
  assert.ok(vectors.inclusion.length > 100);
  for (const v of vectors.inclusion) {
    it(v.name, () => {
      const outcome = verifyInclusionProof({
        index: v.index,
        treeSize: v.treeSize,
        leafHash: bytes(v.leafHash),
        proof: v.proof.map(bytes),
        rootHash: bytes(v.rootHash),
      });
      assert.deepEqual(got(outcome), v.expected);
    });
  }
});

describe('shared vectors: consistency proofs', () => {
  assert.ok(vectors.consistency.length > 90);
  for (const v of vectors.consistency) {
    it(v.name, () => {
      const outcome = verifyConsistencyProof({
        fromSize: v.fromSize,
        toSize: v.toSize,
        fromRoot: bytes(v.fromRoot),
        toRoot: bytes(v.toRoot),
        proof: v.proof.map(bytes),
      });
      assert.deepEqual(got(outcome), v.expected);
    });
  }
});

describe('shared vectors: checkpoints', () => {
  for (const v of vectors.checkpoints.vectors) {
    it(v.name, () => {
      const outcome = verifyCheckpoint(v.note, {
        logKey: vectors.checkpoints.logKey,
        witnesses: v.witnesses,
        quorum: v.quorum,
      });
      assert.deepEqual(got(outcome), v.expected);
      if (outcome.valid) {
        const { origin, size, rootHash } = outcome.checkpoint;
        assert.deepEqual({ origin, size, rootHash: hex(rootHash) }, v.checkpoint);
        assert.deepEqual(
          outcome.cosignatures.map(({ name, time }) => ({ name, time })),
          v.cosigners,
        );
      }
    });
  }
});
