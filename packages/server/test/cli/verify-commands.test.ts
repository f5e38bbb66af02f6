import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { appendEvents } from '../helpers/audit.js';
import { freePort } from '../helpers/free-port.js';
import { recordIntent } from '../helpers/intents.js';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

/** Runs the CLI without blocking this process, whose server answers the CLI's JWKS requests. */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('authority receipt verify and chain verify', () => {
  let t: TestApp;
  let dir: string;
  let base: string;
  let headers: Record<string, string>;
  let ownerId: string;

  before(async () => {
    t = await createTestApp('sqlite');
    const { ownerKey } = await t.createTenant('acme');
    headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'acme' };
    ownerId = ownerKey.id;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    dir = mkdtempSync(path.join(tmpdir(), 'authority-verify-'));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function get(url: string): Promise<string> {
    const response = await t.app.inject({ method: 'GET', url, headers });
    assert.equal(response.statusCode, 200, response.body);
    return response.body;
  }

  it('verifies a version-2 receipt against a pinned JWKS and log key, and rejects tampering and unpinned keys', async () => {
    const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
      tenantId: 'acme',
      decision: 'APPROVED',
      principalId: ownerId,
    });
    const receiptText = await get(`/intent/${intentId}/receipt`);
    assert.equal(JSON.parse(receiptText).receiptVersion, 2);
    const receiptFile = path.join(dir, 'receipt.json');
    writeFileSync(receiptFile, receiptText);
    const jwksFile = path.join(dir, 'jwks.json');
    writeFileSync(jwksFile, await get('/.well-known/authority/acme/jwks.json'));
    const logKeyUrl = `${base}/.well-known/authority/acme/log-key`;
    const logKeyText = await get('/.well-known/authority/acme/log-key');
    const logKeyFile = path.join(dir, 'log-key.txt');
    writeFileSync(logKeyFile, logKeyText);

    for (const logKey of [logKeyFile, logKeyUrl, logKeyText.trim()]) {
      const ok = await cli('receipt', 'verify', receiptFile, '--jwks', jwksFile, '--log-key', logKey);
      assert.equal(ok.status, 0, ok.stdout + ok.stderr);
      assert.match(
        ok.stdout,
        new RegExp(
          `^VALID receipt for intent ${intentId} .*in the log of [^ ]+/audit/acme at tree size \\d+\\)`,
        ),
      );
    }

    // Without the log key a version-2 receipt is never half-verified.
    const noLogKey = await cli('receipt', 'verify', receiptFile, '--jwks', jwksFile);
    assert.equal(noLogKey.status, 1);
    assert.match(noLogKey.stdout, /^INVALID receipt: LOG_KEY_MISSING: .*log key/);

    // Stripped of its proofs and relabelled version 1, it proves nothing about the log, and says so.
    const { checkpoint: _c, inclusion: _i, ...stripped } = JSON.parse(receiptText);
    const strippedFile = path.join(dir, 'stripped.json');
    writeFileSync(strippedFile, JSON.stringify({ ...stripped, receiptVersion: 1 }));
    const downgraded = await cli(
      'receipt',
      'verify',
      strippedFile,
      '--jwks',
      jwksFile,
      '--log-key',
      logKeyFile,
    );
    assert.equal(downgraded.status, 0, downgraded.stdout + downgraded.stderr);
    assert.match(downgraded.stdout, /^VALID receipt .*version 1: no proof that the entries are in the log\)/);

    const viaUrl = await cli(
      'receipt',
      'verify',
      receiptFile,
      '--jwks',
      `${base}/.well-known/authority/acme/jwks.json`,
      '--log-key',
      logKeyUrl,
    );
    assert.equal(viaUrl.status, 0, viaUrl.stdout + viaUrl.stderr);

    const receipt = JSON.parse(receiptText);
    receipt.entries[1].payload.riskScore = 1;
    const tamperedFile = path.join(dir, 'tampered.json');
    writeFileSync(tamperedFile, JSON.stringify(receipt));
    const tampered = await cli(
      'receipt',
      'verify',
      tamperedFile,
      '--jwks',
      jwksFile,
      '--log-key',
      logKeyFile,
    );
    assert.equal(tampered.status, 1);
    assert.match(tampered.stdout, /^INVALID receipt: ENTRY_HASH_MISMATCH/);

    // Another tenant's log key: the checkpoint is not signed by it.
    await t.createTenant('globex');
    const otherLogKey = await cli(
      'receipt',
      'verify',
      receiptFile,
      '--jwks',
      jwksFile,
      '--log-key',
      `${base}/.well-known/authority/globex/log-key`,
    );
    assert.equal(otherLogKey.status, 1, otherLogKey.stdout);
    assert.match(otherLogKey.stdout, /^INVALID receipt: CHECKPOINT_INVALID/);

    const badLogKey = await cli(
      'receipt',
      'verify',
      receiptFile,
      '--jwks',
      jwksFile,
      '--log-key',
      'not-a-key',
    );
    assert.equal(badLogKey.status, 2);
    assert.match(badLogKey.stdout, /^INVALID: --log-key not-a-key is not a log verifier key/);

    const strangerFile = path.join(dir, 'stranger.json');
    writeFileSync(strangerFile, JSON.stringify({ keys: [] }));
    const unpinned = await cli(
      'receipt',
      'verify',
      receiptFile,
      '--jwks',
      strangerFile,
      '--log-key',
      logKeyFile,
    );
    assert.equal(unpinned.status, 1);

    const missing = await cli('receipt', 'verify', path.join(dir, 'nope.json'), '--jwks', jwksFile);
    assert.equal(missing.status, 2);
    assert.match(missing.stdout, /^INVALID: cannot read receipt/);

    // A JWKS URL that answers nothing useful is a verdict too, never silence.
    const badUrl = await cli(
      'receipt',
      'verify',
      receiptFile,
      '--jwks',
      `${base}/.well-known/authority/nobody/jwks.json`,
    );
    assert.equal(badUrl.status, 2);
    assert.match(badUrl.stdout, /^INVALID: .*answered 404/);

    // Usage errors are verdicts too: the first word is INVALID, the exit code 2.
    const usage = await Promise.all([
      cli('receipt', 'verify', receiptFile, '--log-key', logKeyFile),
      cli('chain', 'verify'),
      cli('receipt', 'verify', receiptFile, '--jwks', jwksFile, '--unknown'),
    ]);
    for (const [run, said] of [
      [usage[0], /^INVALID: required option '--jwks <sources\.\.\.>' not specified/],
      [usage[1], /^INVALID: missing required argument 'file'/],
      [usage[2], /^INVALID: unknown option '--unknown'/],
    ] as const) {
      assert.equal(run.status, 2, run.stdout);
      assert.match(run.stdout, said);
    }

    // A key URL that cannot be reached says nothing about the receipt: bad input (2), not invalid (1).
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await Promise.all([
      cli('receipt', 'verify', receiptFile, '--jwks', `${nowhere}/jwks.json`, '--log-key', logKeyFile),
      cli('receipt', 'verify', receiptFile, '--jwks', jwksFile, '--log-key', `${nowhere}/log-key`),
    ]);
    for (const [run, url] of [
      [unreachable[0], `${nowhere}/jwks.json`],
      [unreachable[1], `${nowhere}/log-key`],
    ] as const) {
      assert.equal(run.status, 2, run.stdout);
      assert.ok(run.stdout.startsWith(`INVALID: cannot read ${url}: fetch failed (`), run.stdout);
    }
  });

  it('verifies an export with checkpoint signatures, and finds an altered entry', async () => {
    await appendEvents(t.storage, 'acme', 30, t.clock);
    assert.ok(await t.services.checkpointer.checkpointNow('acme'));
    await appendEvents(t.storage, 'acme', 5, t.clock, 30);
    const exportText = await get('/audit/acme/export');
    const exportFile = path.join(dir, 'export.ndjson');
    writeFileSync(exportFile, exportText);
    const jwksFile = path.join(dir, 'jwks.json');

    const nowhere = `http://127.0.0.1:${await freePort()}/jwks.json`;
    const unreachable = await cli('chain', 'verify', exportFile, '--jwks', nowhere);
    assert.equal(unreachable.status, 2, unreachable.stdout);
    assert.match(
      unreachable.stdout,
      /^INVALID: cannot read http:\/\/127\.0\.0\.1:\d+\/jwks\.json: fetch failed/,
    );

    const ok = await cli('chain', 'verify', exportFile, '--jwks', jwksFile);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(
      ok.stdout,
      /^VALID chain export: \d+ entries, latest hash [0-9a-f]{64}, 1 checkpoint\(s\) verified/,
    );

    const unsigned = await cli('chain', 'verify', exportFile);
    assert.equal(unsigned.status, 0);
    assert.match(unsigned.stdout, /1 not signature-checked/);

    const lines = exportText.trim().split('\n');
    const victim = JSON.parse(lines[7] ?? '{}');
    victim.entry.payload.n = 12345;
    lines[7] = JSON.stringify(victim);
    const tamperedFile = path.join(dir, 'tampered.ndjson');
    writeFileSync(tamperedFile, `${lines.join('\n')}\n`);
    const tampered = await cli('chain', 'verify', tamperedFile, '--jwks', jwksFile);
    assert.equal(tampered.status, 1);
    assert.match(
      tampered.stdout,
      new RegExp(`^INVALID chain export: ENTRY_HASH_MISMATCH at index ${victim.entry.index}`),
    );

    // With the keys fetched from a URL (the review's case: it printed nothing and exited 0).
    const jwksUrl = `${base}/.well-known/authority/acme/jwks.json`;
    const viaUrl = await cli('chain', 'verify', exportFile, '--jwks', jwksUrl);
    assert.equal(viaUrl.status, 0, viaUrl.stdout + viaUrl.stderr);
    assert.match(
      viaUrl.stdout,
      /^VALID chain export: \d+ entries, latest hash [0-9a-f]{64}, 1 checkpoint\(s\) verified/,
    );
    const tamperedViaUrl = await cli('chain', 'verify', tamperedFile, '--jwks', jwksUrl);
    assert.equal(tamperedViaUrl.status, 1, tamperedViaUrl.stdout + tamperedViaUrl.stderr);
    assert.match(tamperedViaUrl.stdout, /^INVALID chain export: ENTRY_HASH_MISMATCH/);

    const missing = await cli('chain', 'verify', path.join(dir, 'nope.ndjson'));
    assert.equal(missing.status, 2);
    assert.match(missing.stdout, /^INVALID: cannot read export/);
  });
});
