/**
 * Cross-check with a second implementation: Go's golang.org/x/mod/sumdb/note and .../tlog, as
 * Debian packages them (golang-golang-x-mod-dev), through the small program in go-crosscheck/. It
 * is built with Debian's Go in GOPATH mode against /usr/share/gocode, with the proxy off, so no
 * network is needed. In CI (CI=true) a missing Go fails this test; elsewhere it skips with a message.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  appendLeaves,
  cosigner,
  EMPTY_FRONTIER,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  formatCheckpoint,
  generateSignerKey,
  hashFromBase64,
  hashToBase64,
  hashToHex,
  leafHash,
  parseSignerKey,
  planConsistencyProof,
  planInclusionProof,
  type StoredHash,
  type SubtreeAddress,
  signNote,
  verifyCheckpoint,
  verifyConsistencyProof,
  verifyInclusionProof,
  verifySignedNote,
} from '../../src/index.js';
import { entryHashes } from './rfc9162-reference.js';

const GOPATH = '/usr/share/gocode';
const PROGRAM = path.join(import.meta.dirname, 'go-crosscheck', 'main.go');
const INSTALL = 'apt-get install -y golang-go golang-golang-x-mod-dev';

function goMissing(): string | undefined {
  const version = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) return `Go is not installed (${INSTALL})`;
  if (!existsSync(path.join(GOPATH, 'src/golang.org/x/mod/sumdb/note/note.go'))) {
    return `Debian's golang.org/x/mod is not installed (${INSTALL})`;
  }
  return undefined;
}

const missing = goMissing();
if (missing && process.env.CI === 'true') {
  describe('Go cross-check', () => {
    it('needs Go in CI', () => assert.fail(`${missing}: CI must run the Go cross-check`));
  });
}

interface Inclusion {
  index: number;
  size: number;
  proof: string[];
}
interface Consistency {
  from: number;
  to: number;
  proof: string[];
}
interface NoteOutcome {
  ok: boolean;
  error?: string;
  verified: string[] | null;
  origin: string;
  size: number;
  root: string;
}
interface GoResult {
  treeHashes: string[] | null;
  inclusion: { ok: boolean; error?: string }[] | null;
  consistency: { ok: boolean; error?: string }[] | null;
  proveInclusion: Inclusion[] | null;
  proveConsistency: Consistency[] | null;
  notes: NoteOutcome[] | null;
  signed: string[] | null;
  generated: [string, string][] | null;
}

const N = 150;
const entries = entryHashes(N, 'go');
const stored = new Map<string, Uint8Array>();
const roots: string[] = [];
let frontier = EMPTY_FRONTIER;
for (const entry of entries) {
  const step = appendLeaves(frontier, [leafHash(entry)]);
  for (const { address, hash } of step.stored as StoredHash[])
    stored.set(`${address.level}/${address.index}`, hash);
  roots.push(hashToBase64(step.rootHash));
  frontier = step.frontier;
}
const read = (addresses: readonly SubtreeAddress[]) =>
  addresses.map((a) => stored.get(`${a.level}/${a.index}`) as Uint8Array);
const inclusionProof = (index: number, size: number) => {
  const plan = planInclusionProof(index, size);
  return plan.assemble(read(plan.addresses)).map(hashToBase64);
};
const consistencyProof = (from: number, to: number) => {
  const plan = planConsistencyProof(from, to);
  return plan.assemble(read(plan.addresses)).map(hashToBase64);
};
const rootOf = (size: number) => hashFromBase64(roots[size - 1] as string);

/** Index/size and from/to pairs: every pair up to 20 leaves, then a spread up to N. */
const pairs: [number, number][] = [];
for (let size = 1; size <= 20; size++) for (let i = 0; i < size; i++) pairs.push([i, size]);
for (let k = 0; k < 200; k++) {
  const size = 21 + ((k * 37) % (N - 20));
  pairs.push([(k * 101) % size, size]);
}
const ranges: [number, number][] = pairs.map(([i, size]) => [i + 1, size]);

describe('Go cross-check', { skip: missing }, () => {
  let dir: string;
  let binary: string;
  const goEnv = () => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    GO111MODULE: 'off',
    GOPATH,
    GOPROXY: 'off',
    GOFLAGS: '',
    CGO_ENABLED: '0',
    GOCACHE: path.join(tmpdir(), 'authority-go-build-cache'),
  });
  const runGo = (job: object): GoResult => {
    const run = spawnSync(binary, [], { input: JSON.stringify(job), encoding: 'utf8', env: goEnv() });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as GoResult;
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'authority-go-'));
    mkdirSync(goEnv().GOCACHE, { recursive: true });
    binary = path.join(dir, 'crosscheck');
    const build = spawnSync('go', ['build', '-o', binary, PROGRAM], { encoding: 'utf8', env: goEnv() });
    assert.equal(build.status, 0, `go build failed: ${build.stderr}`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('computes the same root for every tree size, and Go verifies our proofs', () => {
    const inclusion = pairs.map(([index, size]) => ({ index, size, proof: inclusionProof(index, size) }));
    const consistency = ranges.map(([from, to]) => ({ from, to, proof: consistencyProof(from, to) }));
    const bent = inclusion
      .filter((c) => c.proof.length > 1)
      .map((c) => ({ ...c, proof: [...c.proof].reverse() }));
    const go = runGo({
      leaves: entries.map(hashToHex),
      inclusion: [...inclusion, { ...inclusion[30], index: 0 }, ...bent.slice(0, 20)],
      consistency: [...consistency, { from: 5, to: 9, proof: consistencyProof(4, 9) }],
    });
    assert.deepEqual(go.treeHashes, roots);
    const inclusionOk = go.inclusion?.map((o) => o.ok) ?? [];
    assert.deepEqual(
      inclusionOk.slice(0, inclusion.length),
      inclusion.map(() => true),
      JSON.stringify(go.inclusion?.find((o) => !o.ok)),
    );
    assert.deepEqual(
      inclusionOk.slice(inclusion.length),
      Array(21).fill(false),
      'Go refuses bent proofs too',
    );
    const consistencyOk = go.consistency?.map((o) => o.ok) ?? [];
    assert.deepEqual(consistencyOk, [...consistency.map(() => true), false]);
  });

  it('gives the same proofs as Go’s, and we verify Go’s proofs', () => {
    const go = runGo({
      leaves: entries.map(hashToHex),
      proveInclusion: pairs.map(([index, size]) => ({ index, size })),
      proveConsistency: ranges.map(([from, to]) => ({ from, to })),
    });
    for (const { index, size, proof } of go.proveInclusion ?? []) {
      assert.deepEqual(proof, inclusionProof(index, size), `inclusion ${index} in ${size}`);
      const outcome = verifyInclusionProof({
        index,
        treeSize: size,
        leafHash: leafHash(entries[index] as Uint8Array),
        proof: proof.map(hashFromBase64),
        rootHash: rootOf(size),
      });
      assert.deepEqual(outcome, { valid: true });
    }
    for (const { from, to, proof } of go.proveConsistency ?? []) {
      assert.deepEqual(proof, consistencyProof(from, to), `consistency ${from} → ${to}`);
      const outcome = verifyConsistencyProof({
        fromSize: from,
        toSize: to,
        fromRoot: rootOf(from),
        toRoot: rootOf(to),
        proof: proof.map(hashFromBase64),
      });
      assert.deepEqual(outcome, { valid: true });
    }
    assert.equal(go.proveInclusion?.length, pairs.length);
    assert.equal(go.proveConsistency?.length, ranges.length);
  });

  it('opens our cosigned checkpoints with Go’s note package, and refuses tampered ones', () => {
    const log = ed25519NoteSigner(generateSignerKey('audit.example.com/audit/acme'));
    const other = ed25519NoteSigner(generateSignerKey('audit.example.com/audit/globex'));
    const witness = cosigner(generateSignerKey('witness.example/w1'), () => 1_767_225_600_000);
    const body = formatCheckpoint({ origin: log.name, size: N, rootHash: rootOf(N) });
    const note = signNote(body, [log, witness]);
    const job = (text: string, logKey = log.verifierKey) => ({
      note: text,
      logKey,
      witnessKeys: [witness.verifierKey],
    });
    const go = runGo({
      notes: [
        job(note),
        job(note.replace(`\n${N}\n`, `\n${N - 1}\n`)),
        job(signNote(body, [other]), log.verifierKey),
        job(note, other.verifierKey),
        { note: signNote(body, [log]), logKey: log.verifierKey, witnessKeys: [] },
      ],
    });
    const [ours, tampered, foreign, wrongKey, plain] = go.notes ?? [];
    assert.ok(
      plain?.ok && plain.size === N && plain.root === roots[N - 1],
      'a checkpoint without cosignature',
    );
    assert.ok(ours?.ok, ours?.error);
    assert.deepEqual(ours.verified, [
      `${log.name}+${log.verifierKey.split('+')[1]}`,
      `${witness.name}+${witness.verifierKey.split('+')[1]}`,
    ]);
    assert.deepEqual([ours.origin, ours.size, ours.root], [log.name, N, roots[N - 1]]);
    assert.match(tampered?.error ?? '', /invalid signature/);
    assert.match(foreign?.error ?? '', /no verifiable signatures/);
    assert.equal(wrongKey?.ok, true, 'the witness still verifies; the log key check is ours');
    assert.equal(verifyCheckpoint(note, { logKey: other.verifierKey }).valid, false);
  });

  it('verifies notes, cosignatures and keys made by Go, and signs byte for byte as Go does', () => {
    const first = runGo({ generate: ['audit.example.com/audit/go', 'witness.example/go'] });
    const [[logSkey, logVkey], [witnessSkey]] = first.generated as [[string, string], [string, string]];
    assert.equal(ed25519NoteSigner(logSkey).verifierKey, logVkey);
    assert.equal(parseSignerKey(witnessSkey).name, 'witness.example/go');
    const ourSkey = generateSignerKey('audit.example.com/audit/ours');
    const body = formatCheckpoint({ origin: 'audit.example.com/audit/go', size: 7, rootHash: rootOf(7) });
    const ourBody = formatCheckpoint({
      origin: 'audit.example.com/audit/ours',
      size: 7,
      rootHash: rootOf(7),
    });
    const second = runGo({
      sign: [
        { skey: logSkey, text: body },
        { skey: witnessSkey, text: body, time: 1_767_225_600 },
        { skey: ourSkey, text: ourBody },
      ],
    });
    const [logNote, witnessNote, ourNote] = second.signed as [string, string, string];
    const cosignature = witnessNote.slice(witnessNote.lastIndexOf('\n\n') + 2);
    const witnessKey = cosigner(witnessSkey, Date.now).verifierKey;
    const outcome = verifyCheckpoint(logNote + cosignature, {
      logKey: logVkey,
      witnesses: [witnessKey],
      quorum: 1,
    });
    assert.ok(outcome.valid, outcome.valid ? '' : outcome.detail);
    assert.deepEqual(
      outcome.cosignatures.map((c) => c.time),
      [1_767_225_600],
    );
    assert.equal(signNote(ourBody, [ed25519NoteSigner(ourSkey)]), ourNote);
    assert.ok(verifySignedNote(ourNote, [ed25519NoteVerifier(ed25519NoteSigner(ourSkey).verifierKey)]).valid);
    assert.equal(
      signNote(body, [cosigner(witnessSkey, () => 1_767_225_600_000)]).split('\n\n')[1],
      cosignature,
      'the same cosignature line as Go’s',
    );
  });
});
