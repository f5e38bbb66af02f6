import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  formatAddCheckpointRequest,
  parseAddCheckpointResponse,
  parseVerifierKey,
  verifyCheckpoint,
} from '@authority-runtime/sdk';
import { CLI, stopProcess } from '../helpers/serve-process.js';
import { Log, startWitness, type Witness } from '../helpers/witness-fixtures.js';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env },
  });

describe('authority witness', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-witness-'));
  const keyFile = path.join(dir, 'witness.key');
  const acme = new Log('audit.example.com/audit/acme');
  const globex = new Log('audit.example.com/audit/globex', 'globex');
  const forged = new Log(acme.origin, 'forged');
  let witnessKey: string;
  let witness: Witness;
  const serveArgs = () => ['--key-file', keyFile, '--log', `${acme.origin}=${acme.signer.verifierKey}`];
  const post = async (body: string | Buffer) => {
    const response = await fetch(`${witness.base}/add-checkpoint`, { method: 'POST', body });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };

  before(async () => {
    const made = run('witness', 'keygen', '--key-file', keyFile, '--name', 'witness.example/w1');
    assert.equal(made.status, 0, made.stderr);
    witnessKey = made.stdout.trim();
    witness = await startWitness(serveArgs());
  });
  after(async () => {
    await stopProcess(witness.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keygen writes a private key file once and prints a cosignature verifier key', () => {
    assert.equal(parseVerifierKey(witnessKey).type, 0x04);
    assert.equal(parseVerifierKey(witnessKey).name, 'witness.example/w1');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const before = readFileSync(keyFile, 'utf8');
    const again = run('witness', 'keygen', '--key-file', keyFile, '--name', 'witness.example/w1');
    assert.equal(again.status, 2);
    assert.match(again.stderr, /cannot create key file/);
    assert.equal(readFileSync(keyFile, 'utf8'), before);
    assert.equal(
      run('witness', 'keygen', '--key-file', path.join(dir, 'x'), '--name', 'two words').status,
      2,
    );
  });

  it('cosigns a first checkpoint and a consistent larger one; the cosignatures verify', async () => {
    const first = await post(acme.request(0, 60));
    assert.equal(first.status, 200, first.text);
    const answer = parseAddCheckpointResponse(first.status, first.text);
    assert.ok('signatures' in answer && answer.signatures.length === 1);
    const cosigned = verifyCheckpoint(acme.note(60) + first.text, {
      logKey: acme.signer.verifierKey,
      witnesses: [witnessKey],
      quorum: 1,
    });
    assert.ok(cosigned.valid, cosigned.valid ? '' : cosigned.detail);
    const second = await post(acme.request(60, 100));
    assert.equal(second.status, 200, second.text);
    assert.ok(
      verifyCheckpoint(acme.note(100) + second.text, {
        logKey: acme.signer.verifierKey,
        witnesses: [witnessKey],
        quorum: 1,
      }).valid,
    );
  });

  it('answers 409 with its latest size when old is wrong', async () => {
    const stale = await post(acme.request(0, 120));
    assert.deepEqual(stale, { status: 409, type: 'text/x.tlog.size', text: '100\n' });
    assert.deepEqual(parseAddCheckpointResponse(stale.status, stale.text, stale.type), {
      status: 409,
      latestSize: 100,
    });
    assert.equal((await post(acme.request(60, 120))).status, 409);
  });

  it('never cosigns a smaller or inconsistent tree, a forged proof, another key or another log', async () => {
    assert.equal((await post(acme.request(100, 50, { proofFrom: 0 }))).status, 400, 'smaller than old');
    assert.equal((await post(acme.request(50, 50, { proofFrom: 0 }))).status, 409, 'smaller than cosigned');
    // The log's own key re-signs a history with a rewritten entry: signed, but not consistent.
    const rewritten = await post(forged.request(100, 150, { note: forged.note(150, acme.signer) }));
    assert.equal(rewritten.status, 422, rewritten.text);
    assert.equal(
      (await post(acme.request(100, 150, { proofFrom: 99 }))).status,
      422,
      'a proof from another size',
    );
    const sameSizeOtherRoot = formatAddCheckpointRequest({
      oldSize: 100,
      proof: [],
      checkpoint: forged.note(100, acme.signer),
    });
    assert.equal((await post(sameSizeOtherRoot)).status, 422);
    assert.equal(
      (await post(acme.request(100, 150, { note: acme.note(150, globex.signer) }))).status,
      403,
      'another tenant’s key',
    );
    const edited = acme.note(150).replace('\n150\n', '\n151\n');
    assert.equal((await post(acme.request(100, 150, { note: edited }))).status, 403, 'an edited body');
    assert.equal((await post(globex.request(0, 10))).status, 404, 'a log it does not witness');
    // Refused signed checkpoints are reported as evidence.
    await witness.stderrMatching(/"status":422/);
  });

  it('refuses malformed and oversized bodies', async () => {
    assert.equal((await post('old 0\n')).status, 400);
    assert.equal((await post(Buffer.from([0xff, 0xfe]))).status, 400);
    assert.equal((await post(`old 100\n\n${'x'.repeat(70_000)}`)).status, 413);
    assert.equal((await fetch(`${witness.base}/add-checkpoint`)).status, 404);
  });

  it('cosigns one of two concurrent requests from the same old size', async () => {
    const answers = await Promise.all([post(acme.request(100, 120)), post(acme.request(100, 130))]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    // A stale `old` is routine (the log retries with the size answered): an info line, not evidence.
    await witness.stderrMatching(
      /\{"level":"info","msg":"answered a stale old size with the size last cosigned","latestSize":1[23]0,/,
    );
  });

  it('serves the latest cosigned checkpoint by origin hash', async () => {
    const originHash = createHash('sha256').update(acme.origin).digest('hex');
    const response = await fetch(`${witness.base}/${originHash}/checkpoint`);
    assert.equal(response.status, 200);
    const outcome = verifyCheckpoint(await response.text(), {
      logKey: acme.signer.verifierKey,
      witnesses: [witnessKey],
      quorum: 1,
    });
    assert.ok(outcome.valid && [120, 130].includes(outcome.checkpoint.size));
    const unknown = createHash('sha256').update(globex.origin).digest('hex');
    assert.equal((await fetch(`${witness.base}/${unknown}/checkpoint`)).status, 404);
  });

  it('keeps its state across a restart, and only one process holds it', async () => {
    const stateFile = `${keyFile}.state.json`;
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { logs: Record<string, { size: number }> };
    const size = saved.logs[acme.origin]?.size as number;
    const rival = run('witness', 'serve', '--listen', '127.0.0.1:0', ...serveArgs());
    assert.equal(rival.status, 2);
    assert.match(rival.stderr, /another witness \(pid \d+\) holds/);
    assert.equal(await stopProcess(witness.child), 0);
    assert.equal(existsSync(`${stateFile}.lock`), false);
    witness = await startWitness(serveArgs());
    assert.deepEqual(await post(acme.request(0, 150)), {
      status: 409,
      type: 'text/x.tlog.size',
      text: `${size}\n`,
    });
    assert.equal((await post(acme.request(size, 150))).status, 200);
  });

  it('refuses bad flags, key files and a damaged state file', () => {
    const bad = (args: string[], pattern: RegExp) => {
      const result = run('witness', 'serve', '--listen', '127.0.0.1:0', ...args);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, pattern);
    };
    const other = ['--state-file', path.join(dir, 'other.json')];
    bad(
      ['--key-file', keyFile, '--log', acme.signer.verifierKey, ...other],
      /is not <origin>=<log verifier key>/,
    );
    bad(
      ['--key-file', keyFile, '--log', `${acme.origin}=${witnessKey}`, ...other],
      /not an Ed25519 \(0x01\) note key/,
    );
    bad(
      ['--key-file', path.join(dir, 'missing.key'), '--log', `${acme.origin}=${acme.signer.verifierKey}`],
      /cannot read key file/,
    );
    writeFileSync(path.join(dir, 'public.key'), `${witnessKey}\n`);
    bad(
      ['--key-file', path.join(dir, 'public.key'), '--log', `${acme.origin}=${acme.signer.verifierKey}`],
      /PRIVATE\+KEY/,
    );
    writeFileSync(path.join(dir, 'damaged.json'), '{"version":1,"logs":{"x":{"size":-1}}}');
    bad([...serveArgs(), '--state-file', path.join(dir, 'damaged.json')], /damaged .*refusing to start/);
    bad(
      [
        '--key-file',
        keyFile,
        '--log',
        `${acme.origin}=${acme.signer.verifierKey}`,
        '--listen',
        'nowhere',
        ...other,
      ],
      /not host:port/,
    );
  });
});
