import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  appendLeaves,
  EMPTY_FRONTIER,
  emptyTreeHash,
  hashFromHex,
  hashToHex,
  leafHash,
  nodeHash,
  PROOF_FAILURE_REASONS,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '../../src/index.js';
import { entryHashes, ReferenceTree } from './rfc9162-reference.js';

/*
 * The RFC 6962 test vectors of Google's certificate-transparency (Debian package
 * golang-github-google-certificate-transparency-dev, go/merkletree/*_test.go): eight inputs of
 * arbitrary length, the roots of their first 1..8, and proofs. Their leaf hashes are
 * SHA-256(0x00 ‖ input), computed here; the tree functions take leaf hashes.
 */
const CT_INPUTS = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
];
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
/** [1-based leaf, tree size, proof] as the vectors write them. */
const CT_INCLUSION: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [3, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    2,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
const CT_CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
const ctLeaf = (input: string) =>
  new Uint8Array(
    createHash('sha256')
      .update(Buffer.from([0]))
      .update(Buffer.from(input, 'hex'))
      .digest(),
  );
const ctLeaves = CT_INPUTS.map(ctLeaf);
const root = (n: number) => hashFromHex(CT_ROOTS[n - 1] as string);

describe('published RFC 6962 vectors', () => {
  it('hashes the empty tree, a node and the roots of 1 to 8 leaves', () => {
    assert.equal(
      hashToHex(emptyTreeHash()),
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    const left = hashFromHex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
    const right = hashFromHex('202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f');
    assert.equal(
      hashToHex(nodeHash(left, right)),
      '1a378704c17da31e2d05b6d121c2bb2c7d76f6ee6fa8f983e596c2d034963c57',
    );
    for (let n = 1; n <= 8; n++) {
      assert.equal(hashToHex(appendLeaves(EMPTY_FRONTIER, ctLeaves.slice(0, n)).rootHash), CT_ROOTS[n - 1]);
    }
  });

  it('verifies their inclusion and consistency proofs', () => {
    for (const [leaf, size, proof] of CT_INCLUSION) {
      const input = {
        index: leaf - 1,
        treeSize: size,
        leafHash: ctLeaves[leaf - 1] as Uint8Array,
        proof: proof.map(hashFromHex),
        rootHash: root(size),
      };
      assert.deepEqual(verifyInclusionProof(input), { valid: true }, `leaf ${leaf} of ${size}`);
    }
    for (const [from, to, proof] of CT_CONSISTENCY) {
      const input = {
        fromSize: from,
        toSize: to,
        fromRoot: root(from),
        toRoot: root(to),
        proof: proof.map(hashFromHex),
      };
      assert.deepEqual(verifyConsistencyProof(input), { valid: true }, `${from} → ${to}`);
    }
  });
});

const inputs = entryHashes(200);
const reference = new ReferenceTree(inputs);
const leaf = (i: number) => leafHash(inputs[i] as Uint8Array);
const flip = (hash: Uint8Array, bit: number) => {
  const copy = new Uint8Array(hash);
  copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7));
  return copy;
};

/** Every way an attacker can bend a valid proof; none may verify. */
function bentProofs(proof: Uint8Array[], extra: Uint8Array, at: number, bit: number): Uint8Array[][] {
  const bent = [
    proof.slice(0, -1),
    proof.slice(1),
    [...proof, extra],
    [extra, ...proof],
    [...proof, ...proof],
  ];
  if (proof.length > 0) {
    const i = at % proof.length;
    bent.push(proof.map((h, j) => (j === i ? flip(h, bit) : h)));
    bent.push(proof.map((h, j) => (j === i ? extra : h)));
    bent.push([...proof].reverse());
  }
  return bent.filter(
    (p) => p.length !== proof.length || p.some((h, j) => hashToHex(h) !== hashToHex(proof[j] as Uint8Array)),
  );
}

describe('attacks on inclusion proofs', () => {
  it('a proof for another index, another size, a rewritten entry or a bent path never verifies', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.nat(), fc.nat(), fc.nat(255), (n, a, b, bit) => {
        const m = a % n;
        const proof = reference.path(m, n);
        const good = { index: m, treeSize: n, leafHash: leaf(m), proof, rootHash: reference.mth(0, n) };
        assert.deepEqual(verifyInclusionProof(good), { valid: true });
        for (const index of [m - 1, m + 1, m ^ 2, b % n].filter((i) => i !== m && i >= 0 && i < n)) {
          assert.equal(verifyInclusionProof({ ...good, index }).valid, false, `index ${index} for ${m}`);
          assert.equal(verifyInclusionProof({ ...good, index, leafHash: leaf(index) }).valid, false);
        }
        // The proof of one signed head presented against another genuine head.
        for (const treeSize of [n - 1, n + 1, n * 2, Math.floor(n / 2), 1 + (b % 200)]) {
          if (treeSize === n || treeSize <= m || treeSize > 200) continue;
          const other = { ...good, treeSize, rootHash: reference.mth(0, treeSize) };
          assert.equal(verifyInclusionProof(other).valid, false, `size ${treeSize} for ${n}`);
        }
        assert.equal(verifyInclusionProof({ ...good, leafHash: flip(leaf(m), bit) }).valid, false);
        assert.equal(verifyInclusionProof({ ...good, rootHash: flip(good.rootHash, bit) }).valid, false);
        for (const bent of bentProofs(proof, reference.mth(0, n), b, bit)) {
          assert.equal(verifyInclusionProof({ ...good, proof: bent }).valid, false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reports why, in the documented order', () => {
    const good = {
      index: 5,
      treeSize: 8,
      leafHash: leaf(5),
      proof: reference.path(5, 8),
      rootHash: reference.mth(0, 8),
    };
    const reason = (input: Partial<typeof good>) => {
      const outcome = verifyInclusionProof({ ...good, ...input });
      return outcome.valid ? 'valid' : outcome.reason;
    };
    assert.equal(reason({ index: 8 }), 'INVALID_SIZES');
    assert.equal(reason({ index: -1 }), 'INVALID_SIZES');
    assert.equal(reason({ treeSize: 2 ** 53 }), 'INVALID_SIZES');
    assert.equal(reason({ index: 0.5 }), 'INVALID_SIZES');
    assert.equal(reason({ proof: [new Uint8Array(31)] }), 'MALFORMED_HASH');
    assert.equal(reason({ rootHash: new Uint8Array(0) }), 'MALFORMED_HASH');
    assert.equal(reason({ proof: [...good.proof, good.rootHash] }), 'PROOF_TOO_LONG');
    assert.equal(reason({ proof: good.proof.slice(0, 2) }), 'PROOF_TOO_SHORT');
    assert.equal(reason({ leafHash: leaf(4) }), 'ROOT_MISMATCH');
  });
});

describe('attacks on consistency proofs', () => {
  it('swapped or altered roots, other sizes and bent proofs never verify', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 200 }), fc.nat(), fc.nat(), fc.nat(255), (n, a, b, bit) => {
        const m = 1 + (a % (n - 1));
        const proof = reference.proof(m, n);
        const good = {
          fromSize: m,
          toSize: n,
          fromRoot: reference.mth(0, m),
          toRoot: reference.mth(0, n),
          proof,
        };
        assert.deepEqual(verifyConsistencyProof(good), { valid: true });
        assert.equal(
          verifyConsistencyProof({ ...good, fromRoot: good.toRoot, toRoot: good.fromRoot }).valid,
          false,
        );
        assert.equal(verifyConsistencyProof({ ...good, fromRoot: flip(good.fromRoot, bit) }).valid, false);
        assert.equal(verifyConsistencyProof({ ...good, toRoot: flip(good.toRoot, bit) }).valid, false);
        for (const fromSize of [m - 1, m + 1, m ^ 2, 1 + (b % n)].filter(
          (s) => s !== m && s >= 1 && s <= n,
        )) {
          const other = { ...good, fromSize, fromRoot: reference.mth(0, fromSize) };
          assert.equal(verifyConsistencyProof(other).valid, false, `from ${fromSize} for ${m}`);
        }
        for (const toSize of [n - 1, n + 1, n * 2, m + (b % 200)]) {
          if (toSize === n || toSize < m || toSize > 200) continue;
          const other = { ...good, toSize, toRoot: reference.mth(0, toSize) };
          assert.equal(verifyConsistencyProof(other).valid, false, `to ${toSize} for ${n}`);
        }
        for (const bent of bentProofs(proof, reference.mth(0, m), b, bit)) {
          assert.equal(verifyConsistencyProof({ ...good, proof: bent }).valid, false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('catches a truncated tail: the log drops entries and grows again', () => {
    const honest = reference;
    const forged = new ReferenceTree([...inputs.slice(0, 90), ...entryHashes(60, 'forged')]);
    for (const [seen, cut, later] of [
      [100, 90, 150],
      [128, 90, 150],
      [97, 96, 97],
    ] as const) {
      const forgedAt = (s: number) => (s <= cut ? honest.mth(0, s) : forged.mth(0, s));
      const outcome = verifyConsistencyProof({
        fromSize: seen,
        fromRoot: honest.mth(0, seen),
        toSize: later,
        toRoot: forgedAt(later),
        proof: seen === later ? [] : forged.proof(seen, later),
      });
      assert.equal(outcome.valid, false, `saw ${seen}, cut at ${cut}, now ${later}`);
    }
  });

  it('catches a rewritten entry under a re-signed head of the same or a larger size', () => {
    const rewritten = [...inputs];
    rewritten[41] = entryHashes(1, 'rewrite')[0] as Uint8Array;
    const forged = new ReferenceTree(rewritten);
    const same = {
      fromSize: 100,
      toSize: 100,
      fromRoot: reference.mth(0, 100),
      toRoot: forged.mth(0, 100),
      proof: [],
    };
    assert.deepEqual(verifyConsistencyProof(same), {
      valid: false,
      reason: 'ROOT_MISMATCH',
      detail: 'two different roots for tree size 100',
    });
    const larger = { ...same, toSize: 150, toRoot: forged.mth(0, 150), proof: forged.proof(100, 150) };
    assert.equal(verifyConsistencyProof(larger).valid, false);
    assert.equal(verifyConsistencyProof({ ...larger, proof: reference.proof(100, 150) }).valid, false);
  });

  it('reports why', () => {
    const good = {
      fromSize: 3,
      toSize: 7,
      fromRoot: reference.mth(0, 3),
      toRoot: reference.mth(0, 7),
      proof: reference.proof(3, 7),
    };
    const reason = (input: Partial<typeof good>) => {
      const outcome = verifyConsistencyProof({ ...good, ...input });
      return outcome.valid ? 'valid' : outcome.reason;
    };
    assert.equal(reason({ fromSize: 0 }), 'INVALID_SIZES');
    assert.equal(reason({ fromSize: 8 }), 'INVALID_SIZES');
    assert.equal(reason({ proof: [] }), 'PROOF_TOO_SHORT');
    assert.equal(reason({ proof: good.proof.slice(0, -1) }), 'PROOF_TOO_SHORT');
    assert.equal(reason({ proof: [...good.proof, good.toRoot] }), 'PROOF_TOO_LONG');
    assert.equal(reason({ fromSize: 7, fromRoot: good.toRoot, proof: [good.toRoot] }), 'PROOF_TOO_LONG');
    assert.equal(reason({ fromRoot: reference.mth(0, 4) }), 'ROOT_MISMATCH');
    assert.equal(reason({ proof: [new Uint8Array(33)] }), 'MALFORMED_HASH');
  });
});

describe('verification is total', () => {
  it('never throws, whatever the numbers and byte arrays', () => {
    const size = fc.oneof(
      fc.integer({ min: -3, max: 300 }),
      fc.double(),
      fc.constant(2 ** 53),
      fc.constant(Number.NaN),
    );
    const bytes = fc.oneof(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 40 }));
    fc.assert(
      fc.property(size, size, bytes, bytes, fc.array(bytes, { maxLength: 12 }), (x, y, h1, h2, proof) => {
        const a = verifyInclusionProof({ index: x, treeSize: y, leafHash: h1, proof, rootHash: h2 });
        const b = verifyConsistencyProof({ fromSize: x, toSize: y, fromRoot: h1, toRoot: h2, proof });
        for (const outcome of [a, b]) {
          if (!outcome.valid) assert.ok(PROOF_FAILURE_REASONS.includes(outcome.reason));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
