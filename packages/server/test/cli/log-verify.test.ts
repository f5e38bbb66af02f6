// `authority log verify` (contract §15): offline, with only the pinned log and witness keys, a
// checkpoint verifies, its witnesses agree, and an older checkpoint is proved a prefix of the same
// history. A fork re-signed with the log key, a shrink, a proof for other sizes, another log's key
// and a missing cosignature are each INVALID.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { cosigner, formatCheckpoint, generateSignerKey, hashToHex, signNote } from '@authority-runtime/sdk';
import { type LogVerifyOptions, logVerify } from '../../src/cli/log-verify.js';
import { VerifyInputError } from '../../src/cli/verify-commands.js';
import { CLI } from '../helpers/serve-process.js';
import { Log } from '../helpers/witness-fixtures.js';

const ORIGIN = 'audit.example.com/audit/acme';

describe('authority log verify', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-log-verify-'));
  const honest = new Log(ORIGIN);
  const forked = new Log(ORIGIN, 'forked');
  const other = new Log('audit.example.com/audit/globex', 'globex');
  const witnessA = cosigner(generateSignerKey('witness-a.example'), Date.now);
  const witnessB = cosigner(generateSignerKey('witness-b.example'), Date.now);
  after(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, text: string): string {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  }
  const proofFile = (name: string, from: number, to: number, tree = honest) =>
    file(name, JSON.stringify({ from, to, proof: tree.proof(from, to).map(hashToHex) }));

  async function run(checkpoint: string, options: Partial<LogVerifyOptions> = {}) {
    const sink = new PassThrough();
    const status = await logVerify(checkpoint, { logKey: honest.signer.verifierKey, ...options }, sink);
    sink.end();
    return { status, out: String(sink.read() ?? '') };
  }

  it('verifies a checkpoint and its consistency with an older one', async () => {
    const older = file('5.txt', honest.note(5));
    const newer = file('12.txt', honest.note(12));
    const alone = await run(newer);
    assert.equal(alone.status, 0, alone.out);
    assert.match(
      alone.out,
      new RegExp(`^VALID checkpoint of ${ORIGIN} at size 12 \\(root ${hashToHex(honest.root(12))}\\)\\n$`),
    );
    const history = await run(newer, { previous: older, proof: proofFile('p-5-12.json', 5, 12) });
    assert.equal(history.status, 0, history.out);
    assert.match(history.out, /; consistent with the checkpoint of size 5\n$/);
    const same = await run(newer, { previous: newer, proof: proofFile('p-12-12.json', 12, 12) });
    assert.equal(same.status, 0, same.out);
  });

  it('finds a fork re-signed with the log key, a shrink and a proof for other sizes', async () => {
    const older = file('12b.txt', honest.note(12));
    const fork = file('fork-15.txt', forked.note(15, honest.signer));
    const forkedRun = await run(fork, { previous: older, proof: proofFile('p-fork.json', 12, 15) });
    assert.equal(forkedRun.status, 1);
    assert.match(forkedRun.out, /^INVALID history: size 15 is not consistent with size 12: the log forked/);
    // The forger's own proof, from its own tree, does not help either.
    const forgedProof = await run(fork, {
      previous: older,
      proof: proofFile('p-forged.json', 12, 15, forked),
    });
    assert.equal(forgedProof.status, 1);
    const shrink = await run(file('9.txt', honest.note(9)), {
      previous: older,
      proof: proofFile('p-12-9.json', 9, 12),
    });
    assert.match(shrink.out, /^INVALID history: the log shrank from size 12 to 9/);
    const elsewhere = await run(file('15.txt', honest.note(15)), {
      previous: older,
      proof: proofFile('p-11-15.json', 11, 15),
    });
    assert.match(
      elsewhere.out,
      /^INVALID history: the proof is from size 11 to 15, the checkpoints are of sizes 12 and 15/,
    );
    const tampered = JSON.parse(
      JSON.stringify({ from: 12, to: 15, proof: honest.proof(12, 15).map(hashToHex) }),
    );
    tampered.proof[0] = tampered.proof[0].replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    const bent = await run(file('15c.txt', honest.note(15)), {
      previous: older,
      proof: file('p-bent.json', JSON.stringify(tampered)),
    });
    assert.match(bent.out, /^INVALID history: size 15 is not consistent with size 12/);
  });

  it("refuses another log's checkpoint and a checkpoint not signed by the pinned key", async () => {
    const globex = await run(file('globex.txt', other.note(12)));
    assert.equal(globex.status, 1);
    assert.match(globex.out, /^INVALID checkpoint: /);
    const impostor = await run(file('impostor.txt', honest.note(12, forked.signer)));
    assert.equal(impostor.status, 1);
    const withGlobexKey = await run(file('12c.txt', honest.note(12)), { logKey: other.signer.verifierKey });
    assert.equal(withGlobexKey.status, 1);
  });

  it('checks that the witnesses agree: all given by default, or --quorum of them', async () => {
    const body = formatCheckpoint({ origin: ORIGIN, size: 12, rootHash: honest.root(12) });
    const cosignedByA = file('cosigned-a.txt', signNote(body, [honest.signer, witnessA]));
    const keyFileB = file('witness-b.vkey', `${witnessB.verifierKey}\n`);
    const one = await run(cosignedByA, { witness: [witnessA.verifierKey] });
    assert.equal(one.status, 0, one.out);
    assert.match(one.out, /, cosigned by witness-a\.example\n$/);
    const both = await run(cosignedByA, { witness: [witnessA.verifierKey, keyFileB] });
    assert.equal(both.status, 1);
    assert.match(both.out, /^INVALID checkpoint: QUORUM_NOT_MET/);
    const quorumOne = await run(cosignedByA, { witness: [witnessA.verifierKey, keyFileB], quorum: '1' });
    assert.equal(quorumOne.status, 0, quorumOne.out);
    // A cosignature without the log's own signature proves nothing.
    const witnessOnly = await run(file('witness-only.txt', signNote(body, [witnessA])), {
      witness: [witnessA.verifierKey],
    });
    assert.equal(witnessOnly.status, 1);
  });

  it('calls unreadable input and bad options errors (exit 2), never a verdict of VALID', async () => {
    const note = file('12d.txt', honest.note(12));
    await assert.rejects(run(path.join(dir, 'missing.txt')), VerifyInputError);
    await assert.rejects(run(note, { logKey: 'not-a-key' }), VerifyInputError);
    await assert.rejects(run(note, { logKey: witnessA.verifierKey }), VerifyInputError);
    await assert.rejects(run(note, { witness: [honest.signer.verifierKey] }), /not a cosignature/);
    await assert.rejects(run(note, { witness: [witnessA.verifierKey], quorum: '2' }), /--quorum 2/);
    await assert.rejects(run(note, { previous: note }), /--previous of size 12 needs --proof/);
    await assert.rejects(run(note, { proof: note }), /--proof needs --previous/);
    const older = file('5d.txt', honest.note(5));
    await assert.rejects(run(note, { previous: older, proof: note }), /the consistency proof is not JSON/);
    await assert.rejects(
      run(note, { previous: older, proof: file('p-text.json', '{"from":"5","to":"12","proof":[]}') }),
      /not \{from, to, proof\} with numbers/,
    );
  });

  it("takes the empty tree's checkpoint (size 0) as a prefix of every tree, with or without a proof", async () => {
    const empty = file('0.txt', honest.note(0));
    const newer = file('12e.txt', honest.note(12));
    const alone = await run(newer, { previous: empty });
    assert.equal(alone.status, 0, alone.out);
    assert.match(alone.out, /; consistent with the checkpoint of size 0\n$/);
    const withProof = await run(newer, {
      previous: empty,
      proof: file('p-0-12.json', JSON.stringify({ from: 0, to: 12, proof: [] })),
    });
    assert.equal(withProof.status, 0, withProof.out);
    // A size-0 checkpoint signed with another root than the empty tree's is a rewritten history.
    const body = formatCheckpoint({ origin: ORIGIN, size: 0, rootHash: honest.root(3) });
    const lying = await run(newer, { previous: file('0-lying.txt', signNote(body, [honest.signer])) });
    assert.equal(lying.status, 1);
    assert.match(
      lying.out,
      /^INVALID history: the checkpoint of size 0 has root [0-9a-f]{64}, not the empty tree's/,
    );
  });

  it('runs as a command: VALID first and exit 0, INVALID and exit 1, unreadable exit 2', async () => {
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'log', 'verify', ...args], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.on('exit', (status) => resolve({ status, stdout }));
      });
    const keyFile = file('log.vkey', `${honest.signer.verifierKey}\n`);
    const older = file('5e.txt', honest.note(5));
    const newer = file('12e.txt', honest.note(12));
    const ok = await cli(
      newer,
      '--log-key',
      keyFile,
      '--previous',
      older,
      '--proof',
      proofFile('p-e.json', 5, 12),
    );
    assert.equal(ok.status, 0, ok.stdout);
    assert.match(ok.stdout, /^VALID checkpoint/);
    const bad = await cli(
      file('fork-e.txt', forked.note(15, honest.signer)),
      '--log-key',
      keyFile,
      '--previous',
      newer,
      '--proof',
      proofFile('p-f.json', 12, 15),
    );
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stdout, /^INVALID history/);
    const unreadable = await cli(path.join(dir, 'nope.txt'), '--log-key', keyFile);
    assert.equal(unreadable.status, 2, unreadable.stdout);
    assert.match(unreadable.stdout, /^INVALID: cannot read checkpoint/);
    const usage = await cli(newer);
    assert.equal(usage.status, 2, usage.stdout);
    assert.match(usage.stdout, /^INVALID: required option '--log-key <key\|file\|url>' not specified/);
  });
});
