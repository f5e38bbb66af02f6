// The transparency vectors (contract §15): RFC 9162 leaf and tree hashes, inclusion and consistency
// proofs, and checkpoint notes with witness cosignatures, valid and broken in each checked way. The
// tree and the proofs come from the RFC's recursive definitions (test/transparency/rfc9162-reference.ts,
// which shares nothing with src/transparency); the expected reasons are written here by hand and the
// generator refuses to write a vector on which the TypeScript verifier disagrees.
import { createHash } from 'node:crypto';
import {
  type CheckpointVerification,
  cosigner,
  type Ed25519SigningKey,
  ed25519NoteSigner,
  formatCheckpoint,
  formatSignatureLine,
  type ProofVerification,
  parseSignedNote,
  signNote,
  verifyCheckpoint,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '../../src/index.js';
import { entryHashes, ReferenceTree } from '../transparency/rfc9162-reference.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

/** Deterministic test-only seeds: SHA-256 of a label. Never trust these keys anywhere else. */
function testKey(name: string, label: string): Ed25519SigningKey {
  const seed = createHash('sha256').update(`authority-runtime test vector key: ${label}`).digest();
  return { name, seed: new Uint8Array(seed) };
}

const LEAVES = 13;
/** The unix time (seconds) of every witness cosignature in these vectors. */
const COSIGNED_AT = 1_780_000_000;
const ORIGIN = 'audit.example.com/audit/acme';

type Expected = { valid: boolean; reason: string | null };
const ok: Expected = { valid: true, reason: null };
const no = (reason: string): Expected => ({ valid: false, reason });

function agree(name: string, expected: Expected, got: ProofVerification | CheckpointVerification): void {
  const actual = got.valid ? null : got.reason;
  if (actual !== expected.reason) {
    throw new Error(`vector ${name}: expected ${expected.reason}, the TypeScript verifier says ${actual}`);
  }
}

function flip(hash: string, at = 0): string {
  const bytes = bytesOf(hash);
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return hex(bytes);
}

function treeVectors(tree: ReferenceTree) {
  const inclusion: {
    name: string;
    index: number;
    treeSize: number;
    leafHash: string;
    proof: string[];
    rootHash: string;
    expected: Expected;
  }[] = [];
  const root = (size: number) => hex(tree.mth(0, size));
  const leaf = (i: number) => hex(tree.mth(i, i + 1));
  const path = (i: number, size: number) => tree.path(i, size).map(hex);
  const addInclusion = (
    name: string,
    index: number,
    treeSize: number,
    expected: Expected,
    change: { leafHash?: string; proof?: string[]; rootHash?: string } = {},
  ) => {
    const safe = index >= 0 && index < treeSize && treeSize <= LEAVES;
    const vector = {
      name,
      index,
      treeSize,
      leafHash: change.leafHash ?? leaf(Math.max(0, Math.min(index, LEAVES - 1))),
      proof: change.proof ?? (safe ? path(index, treeSize) : []),
      rootHash: change.rootHash ?? root(Math.min(Math.max(treeSize, 0), LEAVES)),
      expected,
    };
    agree(
      name,
      expected,
      verifyInclusionProof({
        ...vector,
        leafHash: bytesOf(vector.leafHash),
        proof: vector.proof.map(bytesOf),
        rootHash: bytesOf(vector.rootHash),
      }),
    );
    inclusion.push(vector);
  };
  for (let size = 1; size <= LEAVES; size++) {
    for (let index = 0; index < size; index++) addInclusion(`inclusion/${index}-of-${size}`, index, size, ok);
  }
  const p = path(5, 13);
  addInclusion('inclusion/tampered-proof-element', 5, 13, no('ROOT_MISMATCH'), {
    proof: [p[0] as string, flip(p[1] as string), ...p.slice(2)],
  });
  addInclusion('inclusion/proof-of-another-index', 4, 13, no('ROOT_MISMATCH'), { proof: p });
  addInclusion('inclusion/another-leaf', 5, 13, no('ROOT_MISMATCH'), { leafHash: leaf(6) });
  addInclusion('inclusion/proof-for-a-smaller-size', 5, 13, no('PROOF_TOO_SHORT'), { proof: path(5, 8) });
  addInclusion('inclusion/claimed-for-a-larger-size', 5, 12, no('ROOT_MISMATCH'), {
    proof: path(5, 12),
    rootHash: root(13),
  });
  addInclusion('inclusion/root-of-another-size', 5, 13, no('ROOT_MISMATCH'), { rootHash: root(12) });
  addInclusion('inclusion/extra-element', 5, 13, no('PROOF_TOO_LONG'), { proof: [...p, leaf(0)] });
  addInclusion('inclusion/missing-element', 5, 13, no('PROOF_TOO_SHORT'), { proof: p.slice(0, -1) });
  addInclusion('inclusion/index-equals-size', 13, 13, no('INVALID_SIZES'), { proof: p });
  addInclusion('inclusion/negative-index', -1, 13, no('INVALID_SIZES'), { proof: p });
  addInclusion('inclusion/size-zero', 0, 0, no('INVALID_SIZES'));
  addInclusion('inclusion/short-proof-element', 5, 13, no('MALFORMED_HASH'), {
    proof: [p[0]?.slice(2) as string, ...p.slice(1)],
  });
  addInclusion('inclusion/short-leaf-hash', 5, 13, no('MALFORMED_HASH'), { leafHash: leaf(5).slice(2) });
  addInclusion('inclusion/single-leaf-with-a-proof', 0, 1, no('PROOF_TOO_LONG'), { proof: [leaf(1)] });

  const consistency: {
    name: string;
    fromSize: number;
    toSize: number;
    fromRoot: string;
    toRoot: string;
    proof: string[];
    expected: Expected;
  }[] = [];
  const proof = (m: number, n: number) => (m === n ? [] : tree.proof(m, n).map(hex));
  const addConsistency = (
    name: string,
    fromSize: number,
    toSize: number,
    expected: Expected,
    change: { fromRoot?: string; toRoot?: string; proof?: string[] } = {},
  ) => {
    const valid = fromSize >= 1 && fromSize <= toSize && toSize <= LEAVES;
    const vector = {
      name,
      fromSize,
      toSize,
      fromRoot: change.fromRoot ?? root(Math.min(Math.max(fromSize, 0), LEAVES)),
      toRoot: change.toRoot ?? root(Math.min(Math.max(toSize, 0), LEAVES)),
      proof: change.proof ?? (valid ? proof(fromSize, toSize) : []),
      expected,
    };
    agree(
      name,
      expected,
      verifyConsistencyProof({
        ...vector,
        fromRoot: bytesOf(vector.fromRoot),
        toRoot: bytesOf(vector.toRoot),
        proof: vector.proof.map(bytesOf),
      }),
    );
    consistency.push(vector);
  };
  for (let to = 1; to <= LEAVES; to++) {
    for (let from = 1; from <= to; from++) addConsistency(`consistency/${from}-to-${to}`, from, to, ok);
  }
  const c = proof(7, 13);
  const forked = new ReferenceTree(entryHashes(LEAVES, 'forked '));
  addConsistency('consistency/tampered-proof-element', 7, 13, no('ROOT_MISMATCH'), {
    proof: [flip(c[0] as string), ...c.slice(1)],
  });
  addConsistency('consistency/forked-old-root', 7, 13, no('ROOT_MISMATCH'), {
    fromRoot: hex(forked.mth(0, 7)),
  });
  addConsistency('consistency/rewritten-new-root', 7, 13, no('ROOT_MISMATCH'), {
    toRoot: hex(forked.mth(0, 13)),
  });
  addConsistency('consistency/proof-for-other-sizes', 6, 13, no('PROOF_TOO_LONG'), { proof: c });
  addConsistency('consistency/shrink', 13, 7, no('INVALID_SIZES'), { proof: c });
  addConsistency('consistency/from-zero', 0, 7, no('INVALID_SIZES'));
  addConsistency('consistency/empty-proof', 7, 13, no('PROOF_TOO_SHORT'), { proof: [] });
  addConsistency('consistency/missing-element', 7, 13, no('PROOF_TOO_SHORT'), { proof: c.slice(0, -1) });
  addConsistency('consistency/extra-element', 7, 13, no('PROOF_TOO_LONG'), { proof: [...c, leaf(0)] });
  addConsistency('consistency/equal-sizes-with-a-proof', 7, 7, no('PROOF_TOO_LONG'), { proof: [leaf(0)] });
  addConsistency('consistency/equal-sizes-two-roots', 7, 7, no('ROOT_MISMATCH'), {
    toRoot: hex(forked.mth(0, 7)),
  });
  addConsistency('consistency/short-proof-element', 7, 13, no('MALFORMED_HASH'), {
    proof: [c[0]?.slice(2) as string, ...c.slice(1)],
  });

  return { inclusion, consistency };
}

function checkpointVectors(tree: ReferenceTree) {
  const log = ed25519NoteSigner(testKey(ORIGIN, 'log acme'));
  const impostor = ed25519NoteSigner(testKey(ORIGIN, 'log acme impostor'));
  const other = ed25519NoteSigner(testKey('audit.example.com/audit/globex', 'log globex'));
  const w1 = cosigner(testKey('witness.example/w1', 'witness 1'), () => COSIGNED_AT * 1000);
  const w2 = cosigner(testKey('witness.example/w2', 'witness 2'), () => COSIGNED_AT * 1000);
  const stranger = cosigner(
    testKey('witness.example/stranger', 'witness stranger'),
    () => COSIGNED_AT * 1000,
  );
  const witnesses = [w1.verifierKey, w2.verifierKey];
  const body = (size: number, origin = ORIGIN) =>
    formatCheckpoint({ origin, size, rootHash: tree.mth(0, size) });
  const vectors: {
    name: string;
    note: string;
    witnesses: string[];
    quorum: number;
    expected: Expected;
    checkpoint?: { origin: string; size: number; rootHash: string };
    cosigners?: { name: string; time: number }[];
  }[] = [];
  const add = (name: string, note: string, expected: Expected, pinned: string[] = [], quorum = 0) => {
    const outcome = verifyCheckpoint(note, { logKey: log.verifierKey, witnesses: pinned, quorum });
    agree(name, expected, outcome);
    vectors.push({
      name,
      note,
      witnesses: pinned,
      quorum,
      expected,
      ...(outcome.valid
        ? {
            checkpoint: {
              origin: outcome.checkpoint.origin,
              size: outcome.checkpoint.size,
              rootHash: hex(outcome.checkpoint.rootHash),
            },
            cosigners: outcome.cosignatures.map(({ name: signer, time }) => ({ name: signer, time })),
          }
        : {}),
    });
  };
  const signed = signNote(body(13), [log]);
  const cosigned = signNote(body(13), [log, w1, w2]);
  const replaceLast = (note: string, from: string, to: string) => {
    const at = note.lastIndexOf(from);
    return note.slice(0, at) + to + note.slice(at + from.length);
  };
  const signatureLine = (note: string, i: number) =>
    `\u2014 ${note.split('\n\u2014 ')[i + 1]?.split('\n')[0]}\n`;
  const tamperSignature = (line: string) => {
    const { signatures } = parseSignedNote(`x\n\n${line}`);
    const [sig] = signatures;
    if (sig === undefined) throw new Error('no signature');
    const bytes = new Uint8Array(sig.signature);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
    return formatSignatureLine({ ...sig, signature: bytes });
  };

  add('checkpoint/log-signed', signed, ok);
  add('checkpoint/empty-tree', signNote(body(0), [log]), ok);
  add('checkpoint/cosigned-quorum-2', cosigned, ok, witnesses, 2);
  add('checkpoint/cosigned-unpinned-witnesses-ignored', cosigned, ok);
  add('checkpoint/unknown-signer-ignored', signNote(body(13), [stranger, log]), ok, witnesses, 0);
  add('checkpoint/quorum-not-met', signNote(body(13), [log, w1]), no('QUORUM_NOT_MET'), witnesses, 2);
  add(
    'checkpoint/stranger-does-not-count',
    signNote(body(13), [log, w1, stranger]),
    no('QUORUM_NOT_MET'),
    witnesses,
    2,
  );
  add('checkpoint/another-tenants-key', signNote(body(13, other.name), [other]), no('NO_TRUSTED_SIGNATURE'));
  add('checkpoint/re-signed-by-an-impostor-key', signNote(body(12), [impostor]), no('NO_TRUSTED_SIGNATURE'));
  add('checkpoint/witnesses-only', signNote(body(13), [w1, w2]), no('LOG_SIGNATURE_MISSING'), witnesses, 2);
  add('checkpoint/size-changed', replaceLast(signed, '\n13\n', '\n12\n'), no('SIGNATURE_INVALID'));
  add(
    'checkpoint/root-changed',
    signed.replace(
      body(13),
      body(13).replace(/\n(.)(.*)\n$/, (_m, a: string, b: string) => `\n${a === 'A' ? 'B' : 'A'}${b}\n`),
    ),
    no('SIGNATURE_INVALID'),
  );
  add(
    'checkpoint/log-signature-tampered',
    replaceLast(signed, signatureLine(signed, 0), tamperSignature(signatureLine(signed, 0))),
    no('SIGNATURE_INVALID'),
  );
  add(
    'checkpoint/cosignature-tampered',
    replaceLast(cosigned, signatureLine(cosigned, 2), tamperSignature(signatureLine(cosigned, 2))),
    no('SIGNATURE_INVALID'),
    witnesses,
    1,
  );
  add(
    'checkpoint/origin-not-the-key-name',
    signNote(body(13, 'evil.example/audit/acme'), [log]),
    no('ORIGIN_MISMATCH'),
  );
  add('checkpoint/two-line-body', signNote(`${ORIGIN}\n13\n`, [log]), no('CHECKPOINT_MALFORMED'));
  add(
    'checkpoint/size-with-leading-zero',
    signNote(`${ORIGIN}\n013\n${body(13).split('\n')[2]}\n`, [log]),
    no('CHECKPOINT_MALFORMED'),
  );
  add('checkpoint/no-empty-line', signed.replace('\n\n', '\n'), no('NOTE_MALFORMED'));
  add('checkpoint/no-final-newline', signed.slice(0, -1), no('NOTE_MALFORMED'));
  add('checkpoint/control-character', signed.replace(`${ORIGIN}\n`, `${ORIGIN}\t\n`), no('NOTE_MALFORMED'));
  add('checkpoint/signature-not-base64', `${signed.slice(0, -2)}!\n`, no('NOTE_MALFORMED'));
  add('checkpoint/signature-line-without-dash', signed.replace('\u2014 ', '- '), no('NOTE_MALFORMED'));
  return { logKey: log.verifierKey, otherLogKey: other.verifierKey, witnessKeys: witnesses, vectors };
}

export function transparencyVectors() {
  const inputs = entryHashes(LEAVES);
  const tree = new ReferenceTree(inputs);
  const { inclusion, consistency } = treeVectors(tree);
  const checkpoints = checkpointVectors(tree);
  return {
    description:
      'Contract §15. entryHashes are the 32-byte entryHash values of a chain of 13 entries; leafHashes[i] = SHA-256(0x00 ‖ entryHash[i]); roots[n] is the RFC 9162 root of the first n leaves (roots[0] = SHA-256 of nothing). inclusion and consistency vectors verify a proof (hex hashes) against the given root(s); checkpoint vectors verify the note against logKey, with the listed witness keys pinned and the quorum required; a valid one states the parsed checkpoint and the pinned witnesses that cosigned (name and unix time). Every vector gives the one reason the verifier must report. Test-only keys.',
    entryHashes: inputs.map(hex),
    leafHashes: inputs.map((_, i) => hex(tree.mth(i, i + 1))),
    roots: Array.from({ length: LEAVES + 1 }, (_, n) => hex(tree.mth(0, n))),
    inclusion,
    consistency,
    checkpoints,
  };
}
