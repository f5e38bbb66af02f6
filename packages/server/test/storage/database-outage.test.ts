import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildServer } from '../../src/app/build-server.js';
import { loadConfig } from '../../src/config/config.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import { manualClock, TEST_MASTER_KEY } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { startServeProcess, stopProcess } from '../helpers/serve-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** The status of a GET on a connection of its own (keep-alive reuse is closing.test.ts's subject). */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

/** A server over `storage` with tenant acme and its owner's headers, and a decision to send. */
async function serverWithTenant(storage: Storage) {
  const clock = manualClock();
  const { ownerKey } = await createTenantService(storage, clock).create({ id: 'acme', plan: 'pro' });
  const headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'acme' };
  const app = await buildServer({ config: loadConfig({}), storage, clock, masterKey: TEST_MASTER_KEY });
  await app.ready();
  const decide = () =>
    app.inject({ method: 'POST', url: '/intent', headers, payload: intentPayload('list pull requests') });
  return { app, headers, decide };
}

/**
 * Contract §12 with a silent outage: the proxy between the service and PostgreSQL stops forwarding
 * without closing anything (packets dropped, not reset). Every database wait is bounded by
 * DATABASE_TIMEOUT_MS (1 s here), so requests answer 503 instead of hanging for the outage, and
 * shutdown completes. The test timeouts are hang guards: without the bounds these never finish.
 */
describe('a silent PostgreSQL outage (packets dropped)', { skip: !process.env.DATABASE_URL }, () => {
  const databaseUrl = new URL(process.env.DATABASE_URL ?? 'postgres://unused');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client;
  let proxy: TcpProxy;
  let viaProxy: string;

  before(async () => {
    admin = new pg.Client({ connectionString: databaseUrl.toString() });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    proxy = await startTcpProxy(databaseUrl.hostname, Number(databaseUrl.port || 5432));
    const url = new URL(databaseUrl.toString());
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    viaProxy = url.toString();
    const storage = openStorage({ databaseUrl: viaProxy, pgSchema: schema });
    await storage.migrate();
    await storage.close();
  });
  after(async () => {
    await proxy.close();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  it('a decision, a read and /ready answer 503 within the bound; the service then closes', {
    timeout: 30_000,
  }, async () => {
    proxy.restore();
    const storage: Storage = openStorage({
      databaseUrl: viaProxy,
      pgSchema: schema,
      poolSize: 3,
      timeoutMs: 1_000,
    });
    const { app, headers, decide } = await serverWithTenant(storage);
    // Warm: pooled connections exist and are idle when the outage starts.
    const before = await decide();
    assert.equal(before.statusCode, 200, before.body);

    proxy.drop();
    // A new API key is looked up in the database first, then the decision writes: both bounded.
    const decision = await decide();
    assert.equal(decision.statusCode, 503, decision.body);
    assert.equal(decision.json().error.code, 'SERVICE_UNAVAILABLE');
    const read = await app.inject({ method: 'GET', url: '/intents', headers });
    assert.equal(read.statusCode, 503, read.body);
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);

    // Shutdown during the outage completes.
    await app.close();
    await storage.close();
  });

  it('authority serve: SIGTERM during the outage ends the process', { timeout: 60_000 }, async () => {
    proxy.restore();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-outage-'));
    try {
      const url = new URL(viaProxy);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const serve = await startServeProcess(dataDir, {
        DATABASE_URL: url.toString(),
        AUTHORITY_MASTER_KEY: TEST_MASTER_KEY.toString('base64'),
        PUBLIC_BASE_URL: 'http://127.0.0.1',
        DATABASE_TIMEOUT_MS: '1000',
      });
      assert.equal(await statusOf(`${serve.base}/ready`), 200);
      proxy.drop();
      // A request in flight when the signal arrives gets its answer (503) before the process ends.
      const inFlight = statusOf(`${serve.base}/ready`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const code = await stopProcess(serve.child);
      assert.equal(await inFlight, 503);
      assert.equal(code, 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * PostgreSQL refusing connections on its side (`ALLOW_CONNECTIONS false`, the service's backends
 * terminated: what a maintenance window or a failover looks like): 503, not 500.
 */
describe('a PostgreSQL that refuses connections', { skip: !process.env.DATABASE_URL }, () => {
  const databaseUrl = new URL(process.env.DATABASE_URL ?? 'postgres://unused');
  const name = `refusing_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client;

  before(async () => {
    admin = new pg.Client({ connectionString: databaseUrl.toString() });
    await admin.connect();
    await admin.query(`create database ${name}`);
  });
  after(async () => {
    await admin.query(`alter database ${name} allow_connections true`);
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('answers 503 SERVICE_UNAVAILABLE to a decision and a read', { timeout: 30_000 }, async () => {
    const url = new URL(databaseUrl.toString());
    url.pathname = `/${name}`;
    const storage: Storage = openStorage({ databaseUrl: url.toString(), poolSize: 3, timeoutMs: 1_000 });
    await storage.migrate();
    const { app, headers, decide } = await serverWithTenant(storage);
    try {
      const warm = await decide();
      assert.equal(warm.statusCode, 200, warm.body);

      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      const decision = await decide();
      assert.equal(decision.statusCode, 503, decision.body);
      assert.equal(decision.json().error.code, 'SERVICE_UNAVAILABLE');
      const read = await app.inject({ method: 'GET', url: '/intents', headers });
      assert.equal(read.statusCode, 503, read.body);
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
