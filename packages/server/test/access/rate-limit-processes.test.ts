import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { CLI, type ServeProcess, startServeProcess, stopProcess } from '../helpers/serve-process.js';
import { connectRedis, dropPrefix, REDIS_URL, uniquePrefix } from './redis-helpers.js';

function tally(codes: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}

describe('two server processes on one Redis share one budget', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-limits-'));
  const prefix = uniquePrefix();
  let redis: Redis;
  let servers: ServeProcess[] = [];
  let key = '';

  before(async () => {
    redis = await connectRedis();
    // A free tenant (100 requests a minute per key), created before either server starts.
    const created = spawnSync(
      process.execPath,
      ['--import', 'tsx', CLI, '--data-dir', dataDir, 'tenants', 'create', 'shared', '--plan', 'free'],
      {
        env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(created.status, 0, created.stderr);
    key = (JSON.parse(created.stdout) as { ownerKey: { key: string } }).ownerKey.key;
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_IP: '7' };
    // One after the other: both apply migrations on start.
    servers.push(await startServeProcess(dataDir, env));
    servers.push(await startServeProcess(dataDir, env));
  });
  after(async () => {
    await Promise.all(servers.map((server) => stopProcess(server.child)));
    servers = [];
    await dropPrefix(redis, prefix);
    redis.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('per key: 100 requests a minute across both processes, then 429 from either', async () => {
    const codes: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 120; i += 1) {
      const server = servers[i % 2];
      assert.ok(server);
      last = await fetch(`${server.base}/tenant`, {
        headers: { authorization: `Bearer ${key}`, 'x-tenant-id': 'shared' },
      });
      codes.push(last.status);
      await last.arrayBuffer();
    }
    assert.deepEqual(tally(codes), { 200: 100, 429: 20 });
    assert.deepEqual(
      codes.slice(0, 100),
      Array(100).fill(200),
      'the first 100 pass, whichever process answers',
    );
    assert.equal(last?.headers.get('x-ratelimit-limit'), '100');
    assert.equal(last?.headers.get('x-ratelimit-remaining'), '0');
    const retryAfter = Number(last?.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
  });

  it('per address: requests without a key share the address budget too', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const server = servers[i % 2];
      assert.ok(server);
      const res = await fetch(`${server.base}/openapi.json`);
      codes.push(res.status);
      await res.arrayBuffer();
    }
    assert.deepEqual(codes, [200, 200, 200, 200, 200, 200, 200, 429, 429, 429]);
    assert.ok((await redis.keys(`${prefix}rl:*`)).length >= 2);
  });
});
