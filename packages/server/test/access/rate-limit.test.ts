import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Redis } from 'ioredis';
import type { App } from '../../src/app/build-server.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import {
  ADMIN_TOKEN,
  bearer,
  createTestApp,
  type Headers,
  manualClock,
  type TestApp,
} from '../helpers/app.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';
import { portalLogin } from './portal-helpers.js';
import { connectRedis, dropPrefix, serverOn, uniquePrefix } from './redis-helpers.js';

const MINUTE = 60_000;

function assertLimited(res: LightMyRequestResponse, limit: number): void {
  assert.equal(res.statusCode, 429, res.body);
  const body = res.json() as { error: { code: string; requestId: string } };
  assert.equal(body.error.code, 'RATE_LIMITED');
  assert.equal(body.error.requestId, res.headers['x-request-id']);
  assert.equal(res.headers['x-ratelimit-limit'], String(limit));
  assert.equal(res.headers['x-ratelimit-remaining'], '0');
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
  assert.equal(res.headers['x-ratelimit-reset'], String(retryAfter));
}

/** Sends `count` requests one after another and returns the status codes. */
async function statuses(count: number, send: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) out.push((await send()).statusCode);
  return out;
}

function tally(codes: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}

for (const engine of ENGINES) {
  describe(`rate limits per key by plan, in process (${engine})`, () => {
    let t: TestApp;

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' });
    });
    after(async () => {
      await t.close();
    });

    const getTenant = (headers: Headers) => t.app.inject({ method: 'GET', url: '/tenant', headers });

    for (const [plan, limit] of [
      ['free', 100],
      ['pro', 500],
      ['business', 2_000],
      ['enterprise', 10_000],
    ] as const) {
      it(`${plan}: ${limit} requests a minute per key, then 429 with retry-after`, async () => {
        const tenantId = `plan-${plan}`;
        const created = await t.createTenant(tenantId, plan);
        const headers = bearer(created.ownerKey.key, tenantId);
        // The enterprise budget is the tenant's own rateLimitPerMinute (10,000 in the helper); a
        // smaller one keeps the test short.
        if (plan === 'enterprise') {
          const patched = await t.app.inject({
            method: 'PATCH',
            url: `/admin/tenants/${tenantId}`,
            headers: { 'x-admin-token': ADMIN_TOKEN },
            payload: { rateLimitPerMinute: 250 },
          });
          assert.equal(patched.statusCode, 200, patched.body);
        }
        const budget = plan === 'enterprise' ? 250 : limit;
        const first = await getTenant(headers);
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.headers['x-ratelimit-limit'], String(budget));
        assert.equal(first.headers['x-ratelimit-remaining'], String(budget - 1));
        assert.equal(first.headers['x-ratelimit-reset'], '60');
        const rest = await statuses(budget - 1, () => getTenant(headers));
        assert.deepEqual(tally(rest), { 200: budget - 1 });
        assertLimited(await getTenant(headers), budget);

        // Per key: another key of the same tenant has a budget of its own.
        const second = await t.services.apiKeys.create(tenantId, { name: 'second', role: 'auditor' }, null);
        assert.equal((await getTenant(bearer(second.key, tenantId))).statusCode, 200);

        // The window ends a minute after it started.
        t.clock.advance(30_000);
        const waiting = await getTenant(headers);
        assert.equal(waiting.statusCode, 429);
        assert.equal(waiting.headers['retry-after'], '30');
        t.clock.advance(30_000);
        const fresh = await getTenant(headers);
        assert.equal(fresh.statusCode, 200, fresh.body);
        assert.equal(fresh.headers['x-ratelimit-remaining'], String(budget - 1));
      });
    }

    it('requests refused for a permission count too, and the permission answer comes first', async () => {
      const created = await t.createTenant('counted', 'free');
      const auditor = bearer(
        (await t.services.apiKeys.create('counted', { name: 'auditor', role: 'auditor' }, null)).key,
        'counted',
      );
      const forbidden = await statuses(100, () =>
        t.app.inject({ method: 'GET', url: '/keys', headers: auditor }),
      );
      assert.deepEqual(tally(forbidden), { 403: 100 });
      const last = await t.app.inject({ method: 'GET', url: '/keys', headers: auditor });
      assert.equal(last.statusCode, 403, 'permission 403 before per-key 429 (contract section 1)');
      assert.equal(last.headers['x-ratelimit-remaining'], '0');
      assertLimited(await getTenant(auditor), 100);
      // The owner key is another budget.
      assert.equal((await getTenant(bearer(created.ownerKey.key, 'counted'))).statusCode, 200);
    });

    it('/health and /ready are neither limited nor labelled', async () => {
      for (const url of ['/health', '/ready', '/v1/health']) {
        const res = await t.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.headers['x-ratelimit-limit'], undefined, url);
      }
    });
  });

  describe(`rate limits per client address (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '5' });
      owner = await t.ownerHeaders('acme');
    });
    after(async () => {
      await t.close();
    });

    const from = (remoteAddress: string, url: string, headers: Headers = {}) =>
      t.app.inject({ method: 'GET', url, headers, remoteAddress });

    it('counts requests without a valid key per address; 429 then beats 401', async () => {
      const address = '198.51.100.1';
      const unknownKey = bearer(`service_live_${'A'.repeat(43)}`, 'acme');
      const first = await from(address, '/openapi.json');
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-ratelimit-limit'], '5');
      assert.equal(first.headers['x-ratelimit-remaining'], '4');
      const failed = await from(address, '/tenant', unknownKey);
      assert.equal(failed.statusCode, 401);
      assert.equal(failed.headers['x-ratelimit-remaining'], '3', 'failed authentication is counted');
      assert.equal((await from(address, '/tenant', { 'x-tenant-id': 'acme' })).statusCode, 401);
      assert.equal((await from(address, '/metrics')).statusCode, 200);
      assert.equal((await from(address, '/.well-known/authority/acme/jwks.json')).statusCode, 200);
      assertLimited(await from(address, '/tenant', unknownKey), 5);
      assertLimited(await from(address, '/openapi.json'), 5);
      // A valid key from the same address is not counted against it.
      const keyed = await from(address, '/tenant', owner);
      assert.equal(keyed.statusCode, 200, keyed.body);
      assert.equal(keyed.headers['x-ratelimit-limit'], '500', 'the key budget (pro plan) describes it');
      // Other addresses, and /health, are unaffected.
      assert.equal((await from('198.51.100.2', '/openapi.json')).statusCode, 200);
      assert.equal((await from(address, '/health')).statusCode, 200);
      t.clock.advance(MINUTE);
      assert.equal((await from(address, '/openapi.json')).statusCode, 200);
    });

    it('IPv6 clients are counted by their /64', async () => {
      for (let i = 1; i <= 5; i += 1) {
        assert.equal((await from(`2001:db8:0:1::${i}`, '/openapi.json')).statusCode, 200);
      }
      assertLimited(await from('2001:db8:0:1:ffff::9', '/openapi.json'), 5);
      assert.equal((await from('2001:db8:0:2::1', '/openapi.json')).statusCode, 200);
    });

    it('admin routes and portal sessions count per address too', async () => {
      const admin = (remoteAddress: string, token: string) =>
        t.app.inject({
          method: 'PATCH',
          url: '/admin/tenants/acme',
          headers: { 'x-admin-token': token },
          remoteAddress,
          payload: {},
        });
      assert.equal((await admin('198.51.100.7', ADMIN_TOKEN)).statusCode, 200);
      for (let i = 0; i < 4; i += 1) assert.equal((await admin('198.51.100.7', 'wrong')).statusCode, 401);
      assertLimited(await admin('198.51.100.7', ADMIN_TOKEN), 5);

      const session = await portalLogin(t, 'acme', 'auditor');
      for (let i = 0; i < 5; i += 1) {
        const res = await from('198.51.100.8', '/tenant', session.headers);
        assert.equal(res.statusCode, 200, res.body);
      }
      assertLimited(await from('198.51.100.8', '/tenant', session.headers), 5);
    });
  });

  describe(`rate-limit counters in Redis (${engine})`, () => {
    let storage: TestStorage;
    let redis: Redis;
    let prefix: string;
    let first: App;
    let second: App;
    let headers: Headers;
    const clock = manualClock();

    before(async () => {
      storage = await createTestStorage(engine);
      redis = await connectRedis();
      prefix = uniquePrefix();
      const env = { REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_IP: '7' };
      first = await serverOn(storage.storage, { clock, redis, env });
      second = await serverOn(storage.storage, { clock, redis, env });
      const created = await createTenantService(storage.storage, clock).create({
        id: 'shared',
        plan: 'free',
      });
      headers = bearer(created.ownerKey.key, 'shared');
    });
    after(async () => {
      await first.close();
      await second.close();
      await dropPrefix(redis, prefix);
      redis.disconnect();
      await storage.dispose();
    });

    it('two servers on one Redis share one key budget and one address budget', async () => {
      let turn = 0;
      const send = (url: string, extra: Headers = {}) => {
        turn += 1;
        return (turn % 2 === 0 ? first : second).inject({
          method: 'GET',
          url,
          headers: extra,
          remoteAddress: '198.51.100.50',
        });
      };
      const codes = await statuses(120, () => send('/tenant', headers));
      assert.deepEqual(tally(codes), { 200: 100, 429: 20 });
      assertLimited(await send('/tenant', headers), 100);

      const anonymous = await statuses(10, () => send('/openapi.json'));
      assert.deepEqual(tally(anonymous), { 200: 7, 429: 3 });
      const keys = await redis.keys(`${prefix}*`);
      assert.ok(keys.length >= 2, `counters live under the prefix: ${keys.join(', ')}`);
    });

    it('keeps answering with in-process counters when Redis cannot be reached', async () => {
      const { Redis } = await import('ioredis');
      const unreachable = new Redis('redis://127.0.0.1:1', {
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
      unreachable.on('error', () => {});
      const app = await serverOn(storage.storage, {
        clock,
        redis: unreachable,
        env: { RATE_LIMIT_PER_IP: '3' },
      });
      try {
        const codes = await statuses(4, () =>
          app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '198.51.100.60' }),
        );
        assert.deepEqual(codes, [200, 200, 200, 429]);
      } finally {
        await app.close();
        unreachable.disconnect();
      }
    });
  });
}
