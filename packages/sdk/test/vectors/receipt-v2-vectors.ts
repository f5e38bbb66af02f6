// Receipt vectors of version 2 (contract §15): a version-1 receipt plus the log's checkpoint for the
// tree of `seal.headIndex + 1` entries and each entry's RFC 9162 inclusion proof. The tree and the
// proofs come from the RFC's recursive definitions (test/transparency/rfc9162-reference.ts) and the
// notes from test-note-keys.ts: neither shares code with src/transparency. The expected reasons
// follow the verification order written in docs/decisions.md ("Receipt verification order").
import { ReferenceTree } from '../transparency/rfc9162-reference.js';
import {
  buildChain,
  buildReceipt,
  CHAIN_LENGTH,
  clone,
  type Entry,
  type Json,
  OTHER_INTENT,
  type ReceiptVector,
  rehash,
  type Spec,
} from './receipt-chain.js';
import { checkpointBody, signedNote, type TestNoteKey, testNoteKey } from './test-note-keys.js';
import { type Expectation, TENANT } from './token-vectors.js';
import { ALGS, type Alg, key, type VectorKey } from './vector-keys.js';

const ORIGIN = `audit.example.com/audit/${TENANT}`;
const OTHER_ORIGIN = 'audit.example.com/audit/globex';
/** The unix time (seconds) of the witness cosignature. */
const COSIGNED_AT = 1_780_000_000;

type Inclusion = { index: number; proof: string[] };

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function treeOf(chain: readonly Entry[]): ReferenceTree {
  return new ReferenceTree(chain.map((entry) => new Uint8Array(Buffer.from(entry.entryHash, 'hex'))));
}

/** Each entry's audit path in the tree of `size` leaves. */
function inclusionOf(entries: readonly Entry[], tree: ReferenceTree, size: number): Inclusion[] {
  return entries.map((entry) => ({ index: entry.index, proof: tree.path(entry.index, size).map(hex) }));
}

/** The chain with entry `at` rewritten and every later entry relinked, as a history rewrite would. */
function rewrittenChain(chain: readonly Entry[], at: number): Entry[] {
  const out: Entry[] = [];
  for (const entry of chain) {
    const previous = out[out.length - 1];
    if (entry.index < at) out.push(entry);
    else if (entry.index === at) out.push(rehash({ ...entry, payload: { rewritten: true } }));
    else out.push(rehash({ ...entry, previousHash: previous?.entryHash }));
  }
  return out;
}

function flipHex(hash: string): string {
  const last = hash.at(-1) === '0' ? '1' : '0';
  return `${hash.slice(0, -1)}${last}`;
}

/**
 * The version-2 vectors and the log keys they use. `pinnedLogKey` is the log key of tenant acme;
 * each vector's `logKey` is what the verifier is given (`null`: no log key).
 */
export function receiptV2Vectors(keys: Record<string, VectorKey>) {
  const VALID: Expectation = { valid: true, reason: null };
  const fails = (reason: string): Expectation => ({ valid: false, reason });
  const active = (alg: Alg) => key(keys, `${alg}/active`);
  const ed = active('EdDSA');
  const current = { keys: ALGS.map((alg) => active(alg).publicJwk) };

  const log = testNoteKey(ORIGIN, `log ${TENANT}`, 0x01);
  const impostor = testNoteKey(ORIGIN, `log ${TENANT} impostor`, 0x01);
  const otherLog = testNoteKey(OTHER_ORIGIN, 'log globex', 0x01);
  const witness = testNoteKey('witness.example/w1', 'witness 1', 0x04);

  const chain = buildChain();
  const tree = treeOf(chain);
  const vectors: ReceiptVector[] = [];
  const add = (
    name: string,
    description: string,
    receipt: Json,
    expected: Expectation,
    options: { logKey?: string | null; tenant?: string } = {},
  ) =>
    vectors.push({
      name,
      description,
      expectedTenantId: options.tenant ?? null,
      logKey: options.logKey === undefined ? log.verifierKey : options.logKey,
      receipt,
      expected,
    });

  interface V2Spec extends Partial<Spec> {
    /** The note's signers, in order (default: the log key). */
    signers?: TestNoteKey[];
    origin?: string;
    /** The tree size the checkpoint states (default: headIndex + 1). */
    checkpointSize?: number;
    /** The tree whose root the checkpoint signs (default: the chain's). */
    checkpointTree?: ReferenceTree;
    /** The tree size the proofs are computed for (default: the checkpoint's). */
    proofSize?: number;
    /** The tree the proofs come from (default: the chain's). */
    proofTree?: ReferenceTree;
  }
  const receipt = (name: string, spec: V2Spec = {}): Json => {
    const v1 = buildReceipt(chain, name, { sealKey: ed, jwks: current, ...spec });
    const headIndex = (v1.seal as { headIndex: number }).headIndex;
    const size = spec.checkpointSize ?? headIndex + 1;
    const body = checkpointBody(spec.origin ?? ORIGIN, size, (spec.checkpointTree ?? tree).mth(0, size));
    const { jwks, ...rest } = v1;
    return {
      ...rest,
      receiptVersion: 2,
      checkpoint: signedNote(body, spec.signers ?? [log], COSIGNED_AT),
      inclusion: inclusionOf(v1.entries as Entry[], spec.proofTree ?? tree, spec.proofSize ?? size),
      jwks,
    };
  };
  /** A valid receipt with `change` applied to a copy of its inclusion list. */
  const withInclusion = (name: string, change: (inclusion: Inclusion[]) => unknown, spec: V2Spec = {}) => {
    const changed = clone(receipt(name, spec));
    changed.inclusion = change(changed.inclusion as Inclusion[]) ?? changed.inclusion;
    return changed;
  };

  // Valid.
  for (const alg of ALGS) {
    add(
      `v2-valid-${alg}`,
      `version 2, seal and token signed with ${alg}, the log's checkpoint for the sealed head (tree size ${CHAIN_LENGTH})`,
      receipt(`v2-valid-${alg}`, { sealKey: active(alg) }),
      VALID,
    );
  }
  add(
    'v2-valid-denied-no-token',
    'version 2 of a DENIED intent: no token',
    receipt('v2-denied', { decision: 'DENIED', token: 'none' }),
    VALID,
  );
  add(
    'v2-valid-head-at-last-entry',
    "the sealed head is the intent's last entry (index 9): checkpoint and proofs for tree size 10",
    receipt('v2-head', { headIndex: 9 }),
    VALID,
  );
  add(
    'v2-valid-witness-cosigned',
    'the checkpoint also carries a witness cosignature line, which the verifier ignores',
    receipt('v2-cosigned', { signers: [log, witness] }),
    VALID,
  );
  add(
    'v2-valid-expected-tenant',
    'the expected tenant is the receipt tenant',
    receipt('v2-tenant-ok'),
    VALID,
    { tenant: TENANT },
  );
  const downgraded = clone(receipt('v2-downgraded'));
  delete downgraded.checkpoint;
  delete downgraded.inclusion;
  downgraded.receiptVersion = 1;
  add(
    'v1-downgraded-from-v2',
    'a version-2 receipt stripped of checkpoint and inclusion and labelled version 1: the seal does not ' +
      'bind the version, so it verifies as version 1 (a caller who needs the log proof checks that the ' +
      'verified receipt is version 2)',
    downgraded,
    VALID,
  );

  // 1. RECEIPT_MALFORMED.
  const v1WithInclusion = clone(receipt('v1-inclusion'));
  v1WithInclusion.receiptVersion = 1;
  add(
    'malformed-v1-with-inclusion',
    'a version-1 receipt carrying checkpoint and inclusion',
    v1WithInclusion,
    fails('RECEIPT_MALFORMED'),
  );
  const v1WithCheckpoint = clone(receipt('v1-checkpoint'));
  v1WithCheckpoint.receiptVersion = 1;
  delete v1WithCheckpoint.inclusion;
  add(
    'malformed-v1-with-checkpoint',
    'a version-1 receipt carrying a checkpoint',
    v1WithCheckpoint,
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-version-3',
    'a version-2 receipt labelled receiptVersion 3',
    { ...receipt('v2-version-3'), receiptVersion: 3 },
    fails('RECEIPT_MALFORMED'),
  );
  const noCheckpoint = clone(receipt('v2-no-checkpoint'));
  delete noCheckpoint.checkpoint;
  add('malformed-v2-no-checkpoint', 'version 2 without checkpoint', noCheckpoint, fails('RECEIPT_MALFORMED'));
  const noInclusion = clone(receipt('v2-no-inclusion'));
  delete noInclusion.inclusion;
  add('malformed-v2-no-inclusion', 'version 2 without inclusion', noInclusion, fails('RECEIPT_MALFORMED'));
  add(
    'malformed-v2-empty-checkpoint',
    'checkpoint is an empty string',
    { ...receipt('v2-empty-checkpoint'), checkpoint: '' },
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-checkpoint-not-a-string',
    'checkpoint is an object',
    { ...receipt('v2-checkpoint-object'), checkpoint: { origin: ORIGIN } },
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-not-an-array',
    'inclusion is an object',
    withInclusion('v2-inclusion-object', (inclusion) => ({ ...inclusion })),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-one-short',
    'inclusion lists one proof fewer than there are entries',
    withInclusion('v2-inclusion-short', (inclusion) => inclusion.slice(0, -1)),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-one-extra',
    'inclusion lists one proof more than there are entries',
    withInclusion('v2-inclusion-long', (inclusion) => [...inclusion, inclusion[0]]),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-index-mismatch',
    "inclusion[1].index is 4, entries[1].index is 3 (the proof itself is index 3's)",
    withInclusion('v2-inclusion-index', (inclusion) => {
      (inclusion[1] as Inclusion).index = 4;
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-out-of-order',
    'the first two inclusion items swapped',
    withInclusion('v2-inclusion-order', ([a, b, ...rest]) => [b, a, ...rest]),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-unknown-member',
    'an inclusion item with a member besides index and proof',
    withInclusion('v2-inclusion-member', (inclusion) => {
      (inclusion[0] as Json).treeSize = CHAIN_LENGTH;
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-no-proof',
    'an inclusion item without proof',
    withInclusion('v2-inclusion-no-proof', (inclusion) => {
      delete (inclusion[0] as Partial<Inclusion>).proof;
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-inclusion-index-as-string',
    'an inclusion index written as a string',
    withInclusion('v2-inclusion-string', (inclusion) => {
      (inclusion[0] as Json).index = String(inclusion[0]?.index);
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-proof-upper-case',
    'a proof element in upper-case hex',
    withInclusion('v2-proof-upper', (inclusion) => {
      const proof = (inclusion[0] as Inclusion).proof;
      proof[0] = (proof[0] as string).toUpperCase();
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-proof-short-element',
    'a proof element of 31 bytes',
    withInclusion('v2-proof-31', (inclusion) => {
      const proof = (inclusion[0] as Inclusion).proof;
      proof[0] = (proof[0] as string).slice(2);
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-proof-not-an-array',
    'a proof given as one string',
    withInclusion('v2-proof-string', (inclusion) => {
      (inclusion[0] as Json).proof = (inclusion[0] as Inclusion).proof.join('');
    }),
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-v2-before-log-key-missing',
    'inclusion one short and no log key given: the malformed receipt is reported first',
    withInclusion('v2-short-no-key', (inclusion) => inclusion.slice(0, -1)),
    fails('RECEIPT_MALFORMED'),
    { logKey: null },
  );

  // 2. LOG_KEY_MISSING.
  add(
    'v2-log-key-missing',
    'a valid version-2 receipt verified without a log key: the verifier fails, it never skips the checks',
    receipt('v2-no-log-key'),
    fails('LOG_KEY_MISSING'),
    { logKey: null },
  );
  add(
    'v2-log-key-missing-before-tenant',
    'no log key and another expected tenant: the missing log key is reported first',
    receipt('v2-no-log-key-tenant'),
    fails('LOG_KEY_MISSING'),
    { logKey: null, tenant: 'globex' },
  );

  // 3. The checks of version 1 come before the checkpoint.
  add(
    'v2-tenant-before-checkpoint',
    'another expected tenant and a checkpoint signed by an impostor: TENANT_MISMATCH first',
    receipt('v2-tenant', { signers: [impostor] }),
    fails('TENANT_MISMATCH'),
    { tenant: 'globex' },
  );
  const tampered = clone(receipt('v2-tampered'));
  ((tampered.entries as Json[])[1]?.payload as Json).nonce = 'n-forged';
  add(
    'v2-entry-tampered',
    "an entry's payload changed, its entryHash, seal, checkpoint and proofs kept",
    tampered,
    fails('ENTRY_HASH_MISMATCH'),
  );
  const sealFirst = clone(receipt('v2-seal-first', { signers: [impostor] }));
  (sealFirst.seal as Json).issuedAt = '2023-11-14T22:06:00.000Z';
  add(
    'v2-seal-before-checkpoint',
    'seal.issuedAt changed after signing and a checkpoint signed by an impostor: SEAL_SIGNATURE_INVALID first',
    sealFirst,
    fails('SEAL_SIGNATURE_INVALID'),
  );

  // 4. CHECKPOINT_INVALID.
  add(
    'v2-checkpoint-another-tenants-log-key',
    "a genuine receipt checked with another tenant's log key (audit.example.com/audit/globex)",
    receipt('v2-other-key'),
    fails('CHECKPOINT_INVALID'),
    { logKey: otherLog.verifierKey },
  );
  add(
    'v2-checkpoint-of-another-tenants-log',
    "the checkpoint is globex's log signing acme's tree, checked with globex's log key: the origin is not " +
      'of the receipt tenant',
    receipt('v2-other-log', { signers: [otherLog], origin: OTHER_ORIGIN }),
    fails('CHECKPOINT_INVALID'),
    { logKey: otherLog.verifierKey },
  );
  add(
    'v2-checkpoint-impostor-key',
    "a checkpoint signed under the log's name by another key",
    receipt('v2-impostor', { signers: [impostor] }),
    fails('CHECKPOINT_INVALID'),
  );
  add(
    'v2-checkpoint-witness-only',
    'a checkpoint carrying only a witness cosignature',
    receipt('v2-witness-only', { signers: [witness] }),
    fails('CHECKPOINT_INVALID'),
  );
  add(
    'v2-checkpoint-origin-not-the-key-name',
    'a checkpoint signed by the log key for origin audit.example.com/audit/acme2',
    receipt('v2-origin', { origin: `${ORIGIN}2` }),
    fails('CHECKPOINT_INVALID'),
  );
  add(
    'v2-checkpoint-size-one-less',
    `a checkpoint (and proofs) for tree size ${CHAIN_LENGTH - 1}, the sealed head needs ${CHAIN_LENGTH}`,
    receipt('v2-size-less', { checkpointSize: CHAIN_LENGTH - 1 }),
    fails('CHECKPOINT_INVALID'),
  );
  add(
    'v2-checkpoint-size-of-a-later-head',
    `head index 9 sealed, a checkpoint (and proofs) for tree size ${CHAIN_LENGTH}`,
    receipt('v2-size-more', { headIndex: 9, checkpointSize: CHAIN_LENGTH }),
    fails('CHECKPOINT_INVALID'),
  );
  const rootChanged = clone(receipt('v2-root-changed'));
  const rootLine = tree.mth(0, CHAIN_LENGTH);
  const otherRoot = Buffer.from(tree.mth(0, CHAIN_LENGTH - 1)).toString('base64');
  rootChanged.checkpoint = (rootChanged.checkpoint as string).replace(
    `\n${Buffer.from(rootLine).toString('base64')}\n`,
    `\n${otherRoot}\n`,
  );
  add(
    'v2-checkpoint-root-changed',
    'the root line changed after signing',
    rootChanged,
    fails('CHECKPOINT_INVALID'),
  );
  const sigTampered = clone(receipt('v2-sig-tampered'));
  const note = sigTampered.checkpoint as string;
  // A character inside the base64 of the signature bytes (not the padding or its last bits).
  const at = note.length - 20;
  sigTampered.checkpoint = `${note.slice(0, at)}${note[at] === 'A' ? 'B' : 'A'}${note.slice(at + 1)}`;
  add(
    'v2-checkpoint-signature-tampered',
    "the log's signature changed",
    sigTampered,
    fails('CHECKPOINT_INVALID'),
  );
  add(
    'v2-checkpoint-not-a-note',
    'checkpoint is text that is not a signed note',
    { ...receipt('v2-not-a-note'), checkpoint: `${ORIGIN}\n${CHAIN_LENGTH}\n` },
    fails('CHECKPOINT_INVALID'),
  );
  add(
    'v2-checkpoint-before-inclusion',
    'a checkpoint signed by an impostor and a proof element changed: CHECKPOINT_INVALID first',
    withInclusion(
      'v2-checkpoint-first',
      (inclusion) => {
        const proof = (inclusion[0] as Inclusion).proof;
        proof[0] = flipHex(proof[0] as string);
      },
      { signers: [impostor] },
    ),
    fails('CHECKPOINT_INVALID'),
  );

  // 5. INCLUSION_PROOF_INVALID.
  const rewritten = treeOf(rewrittenChain(chain, 5));
  add(
    'v2-rewritten-tree-re-signed',
    'entry 5 (not of this intent) rewritten and the chain relinked; the log key signs the rewritten ' +
      "tree's root for the same size; the proofs are the genuine tree's",
    receipt('v2-rewritten', { checkpointTree: rewritten }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-rewritten-tree-re-signed-with-its-proofs',
    "as above, with the rewritten tree's own proofs: entries 2 to 4 still prove, entry 7 (relinked, " +
      'so rehashed in the rewrite) does not',
    receipt('v2-rewritten-proofs', { checkpointTree: rewritten, proofTree: rewritten }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-proof-of-another-index',
    "inclusion[1] (index 3) carries index 4's proof",
    withInclusion('v2-other-index', (inclusion) => {
      (inclusion[1] as Inclusion).proof = [...(inclusion[2] as Inclusion).proof];
    }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-proof-for-another-size',
    `proofs for tree size ${CHAIN_LENGTH - 1} under the checkpoint of size ${CHAIN_LENGTH}`,
    receipt('v2-proof-size', { proofSize: CHAIN_LENGTH - 1 }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-proof-element-changed',
    'one bit of the last entry\u2019s first proof element changed',
    withInclusion('v2-proof-changed', (inclusion) => {
      const proof = (inclusion[inclusion.length - 1] as Inclusion).proof;
      proof[0] = flipHex(proof[0] as string);
    }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-proof-element-missing',
    "the last element of an entry's proof dropped",
    withInclusion('v2-proof-missing', (inclusion) => {
      (inclusion[2] as Inclusion).proof.pop();
    }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-proof-element-extra',
    "an element appended to an entry's proof",
    withInclusion('v2-proof-extra', (inclusion) => {
      const proof = (inclusion[2] as Inclusion).proof;
      proof.push(proof[0] as string);
    }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  add(
    'v2-proof-empty',
    "an entry's proof emptied",
    withInclusion('v2-proof-empty', (inclusion) => {
      (inclusion[0] as Inclusion).proof = [];
    }),
    fails('INCLUSION_PROOF_INVALID'),
  );
  const tokenLater = withInclusion(
    'v2-inclusion-first',
    (inclusion) => {
      const proof = (inclusion[0] as Inclusion).proof;
      proof[0] = flipHex(proof[0] as string);
    },
    { tokenOverrides: { intentId: OTHER_INTENT } },
  );
  add(
    'v2-inclusion-before-token',
    'a proof element changed and a token of another intent: INCLUSION_PROOF_INVALID first',
    tokenLater,
    fails('INCLUSION_PROOF_INVALID'),
  );

  // 6. The token and the embedded key set, after the proofs.
  add(
    'v2-token-other-intent',
    'a genuine token of another intent, everything else valid',
    receipt('v2-token-intent', { tokenOverrides: { intentId: OTHER_INTENT } }),
    fails('TOKEN_INVALID'),
  );
  add(
    'v2-embedded-jwks-unpinned',
    'the embedded key set lists a key the verifier does not pin',
    receipt('v2-embedded', { jwks: { keys: [...current.keys, key(keys, 'EdDSA/unpinned').publicJwk] } }),
    fails('EMBEDDED_JWKS_MISMATCH'),
  );

  return {
    pinnedLogKey: log.verifierKey,
    otherLogKeys: { globex: otherLog.verifierKey, impostor: impostor.verifierKey },
    witnessKey: witness.verifierKey,
    vectors,
  };
}
