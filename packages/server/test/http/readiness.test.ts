import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { buildServer } from '../../src/app/build-server.js';
import { loadConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/storage/database.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import { createTestApp, manualClock, TEST_MASTER_KEY } from '../helpers/app.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

describe('readiness and an unreachable database', () => {
  it('SQLite: /ready answers 503 naming the database, and requests fail closed with 503', async () => {
    const t = await createTestApp('sqlite');
    try {
      const { tenant, ownerKey } = await t.createTenant('acme');
      const headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': tenant.id };
      const ok = await t.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(ok.statusCode, 200);
      assert.deepEqual(ok.json(), { ready: true, checks: { database: 'ok' } });

      await t.storage.close();
      const down = await t.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(down.statusCode, 503);
      assert.deepEqual(down.json(), { ready: false, checks: { database: 'unavailable' } });

      const health = await t.app.inject({ method: 'GET', url: '/health' });
      assert.equal(health.statusCode, 200, 'liveness does not depend on the database');

      const tenantRead = await t.app.inject({ method: 'GET', url: '/tenant', headers });
      assert.equal(tenantRead.statusCode, 503);
      assert.equal(tenantRead.json().error.code, 'SERVICE_UNAVAILABLE');
    } finally {
      await t.close();
    }
  });

  it('PostgreSQL behind a proxy: /ready goes 503 when the connection is cut, and back to 200', {
    skip: !process.env.DATABASE_URL,
  }, async () => {
    const databaseUrl = new URL(process.env.DATABASE_URL ?? '');
    const proxy = await startTcpProxy(databaseUrl.hostname, Number(databaseUrl.port || 5432));
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: databaseUrl.toString() });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const viaProxy = new URL(databaseUrl.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const storage = openStorage({ databaseUrl: viaProxy.toString(), pgSchema: schema, poolSize: 2 });
    const clock = manualClock();
    try {
      await storage.migrate();
      const { ownerKey } = await createTenantService(storage, clock).create({ id: 'acme', plan: 'pro' });
      const config = loadConfig({});
      const app = await buildServer({ config, storage, clock, masterKey: TEST_MASTER_KEY });
      await app.ready();
      assert.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);

      await proxy.cut();
      const down = await app.inject({ method: 'GET', url: '/ready' });
      assert.equal(down.statusCode, 503);
      assert.equal(down.json().checks.database, 'unavailable');
      const keys = await app.inject({
        method: 'GET',
        url: '/keys',
        headers: { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'acme' },
      });
      assert.equal(keys.statusCode, 503);
      assert.equal(keys.json().error.code, 'SERVICE_UNAVAILABLE');

      proxy.resume();
      const back = await app.inject({ method: 'GET', url: '/ready' });
      assert.equal(back.statusCode, 200);
      await app.close();
    } finally {
      await storage.close().catch(() => {});
      await proxy.close();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});
