// `authority log monitor` (contract §15) against a log server serving the contract's checkpoint and
// consistency-proof routes from a test log: honest growth passes; a fork signed with the log key, a
// shrink, a rewrite at the same size and another tenant's key are each reported, and the command
// exits 1 naming the sizes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashToHex } from '@authority-runtime/sdk';
import Fastify, { type FastifyInstance } from 'fastify';
import { monitorOnce } from '../../src/cli/log-monitor.js';
import { CLI } from '../helpers/serve-process.js';
import { Log } from '../helpers/witness-fixtures.js';

const ORIGIN = 'audit.example.com/audit/acme';

describe('authority log monitor', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-log-monitor-'));
  const honest = new Log(ORIGIN);
  const forked = new Log(ORIGIN, 'forked');
  const other = new Log('audit.example.com/audit/globex', 'globex');
  const served = { size: 5, tree: honest, signer: honest.signer };
  let server: FastifyInstance;
  let base: string;

  before(async () => {
    server = Fastify();
    server.get('/audit/acme/checkpoint', async (request, reply) => {
      assert.equal(request.headers.authorization, 'Bearer k');
      return reply.type('text/plain; charset=utf-8').send(served.tree.note(served.size, served.signer));
    });
    server.get<{ Querystring: { from: string; to: string } }>(
      '/audit/acme/proof/consistency',
      async (request) => {
        const from = Number(request.query.from);
        const to = Number(request.query.to);
        return { from, to, proof: served.tree.proof(from, to).map(hashToHex) };
      },
    );
    base = await server.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const options = (state: string, logKey = honest.signer.verifierKey) => ({
    baseUrl: base,
    tenant: 'acme',
    key: 'k',
    logKey,
    state: path.join(dir, state),
  });

  it('keeps the first checkpoint, then accepts only consistent growth', async () => {
    served.size = 5;
    assert.equal(await monitorOnce(options('honest.json')), 'first checkpoint, size 5');
    assert.equal(await monitorOnce(options('honest.json')), 'unchanged at size 5');
    served.size = 12;
    assert.equal(await monitorOnce(options('honest.json')), 'consistent from size 5 to 12');
  });

  it("moves on from the empty tree's checkpoint (size 0) without asking for a proof", async () => {
    served.size = 0;
    assert.equal(await monitorOnce(options('empty.json')), 'first checkpoint, size 0');
    served.size = 3;
    assert.equal(await monitorOnce(options('empty.json')), 'consistent from size 0 to 3');
    served.size = 9;
    assert.equal(await monitorOnce(options('empty.json')), 'consistent from size 3 to 9');
    // A kept size-0 state whose root is not the empty tree's was rewritten: reported, not trusted.
    writeFileSync(
      path.join(dir, 'empty-lying.json'),
      JSON.stringify({ origin: ORIGIN, size: 0, rootHash: hashToHex(honest.root(2)), note: '' }),
    );
    await assert.rejects(monitorOnce(options('empty-lying.json')), /the checkpoint of size 0 has root/);
  });

  it('reports a fork re-signed with the log key, and keeps the last good state', async () => {
    served.size = 12;
    await monitorOnce(options('fork.json'));
    Object.assign(served, { size: 15, tree: forked });
    await assert.rejects(
      monitorOnce(options('fork.json')),
      /the log forked: size 15 is not consistent with size 12/,
    );
    Object.assign(served, { tree: honest });
    assert.equal(await monitorOnce(options('fork.json')), 'consistent from size 12 to 15');
  });

  it('refuses a log key that is not an Ed25519 log verifier key', async () => {
    for (const logKey of ['not-a-key', other.signer.verifierKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')]) {
      await assert.rejects(
        monitorOnce(options('bad-key.json', logKey)),
        /--log-key .* is not a log verifier key/,
      );
    }
  });

  it('reports a shrink and a rewrite at the same size', async () => {
    served.size = 15;
    await monitorOnce(options('shrink.json'));
    served.size = 9;
    await assert.rejects(monitorOnce(options('shrink.json')), /the log shrank from size 15 to 9/);
    Object.assign(served, { size: 15, tree: forked });
    await assert.rejects(
      monitorOnce(options('shrink.json')),
      /the log rewrote history: two root hashes for size 15/,
    );
    Object.assign(served, { tree: honest });
  });

  it("refuses a checkpoint signed by another tenant's key", async () => {
    await assert.rejects(
      monitorOnce(options('other.json', other.signer.verifierKey)),
      /the checkpoint does not verify: NO_TRUSTED_SIGNATURE/,
    );
  });

  it('the command exits 1 with ALERT naming the sizes, and 0 with OK', async () => {
    const keyFile = path.join(dir, 'log.key');
    writeFileSync(keyFile, `${honest.signer.verifierKey}\n`);
    const run = (state: string, key: { flag: boolean; env?: string } = { flag: true }) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const { AUTHORITY_API_KEY: _unset, ...env } = process.env;
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            CLI,
            'log',
            'monitor',
            ...['--base-url', base, '--tenant', 'acme', '--log-key', keyFile, '--state', state],
            ...(key.flag ? ['--key', 'k'] : []),
          ],
          { env: key.env === undefined ? env : { ...env, AUTHORITY_API_KEY: key.env } },
        );
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.on('exit', (code) => resolve({ code, stdout }));
      });
    const state = path.join(dir, 'cli.json');
    Object.assign(served, { size: 12, tree: honest });
    const first = await run(state);
    assert.deepEqual(first, { code: 0, stdout: 'OK first checkpoint, size 12\n' });
    served.size = 7;
    const shrunk = await run(state);
    assert.deepEqual(shrunk, { code: 1, stdout: 'ALERT the log shrank from size 12 to 7\n' });
    // The key may come from AUTHORITY_API_KEY instead of the command line; one of the two is needed.
    served.size = 12;
    const fromEnv = await run(state, { flag: false, env: 'k' });
    assert.deepEqual(fromEnv, { code: 0, stdout: 'OK unchanged at size 12\n' });
    assert.equal((await run(state, { flag: false })).code, 2);
  });
});
