import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildServer } from '../../src/app/build-server.js';
import { createServices, type Services } from '../../src/app/services.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createHealthChecker } from '../../src/connectors/health-checker.js';
import { systemClock } from '../../src/foundation/clock.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import { createTestApp, type Headers, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';
import { createTestStorage, ENGINES } from '../helpers/storage.js';

/** A receiver whose health answer can be changed, counting the GETs it gets. */
async function startHealthPeer() {
  let status = 204;
  const gets: Array<{ path: string; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') gets.push({ path: req.url ?? '/', headers: req.headers });
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    gets,
    answer(next: number) {
      status = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('connector timers (contract §0)', () => {
  it('defaults CONNECTOR_HEALTH_INTERVAL_MS to 30 s and CONNECTOR_TIMEOUT_MS to 10 s, and validates both', () => {
    const config = loadConfig({});
    assert.equal(config.connectorHealthIntervalMs, 30_000);
    assert.equal(config.connectorTimeoutMs, 10_000);
    assert.equal(loadConfig({ CONNECTOR_HEALTH_INTERVAL_MS: '250' }).connectorHealthIntervalMs, 250);
    for (const env of [
      { CONNECTOR_HEALTH_INTERVAL_MS: '5' },
      { CONNECTOR_HEALTH_INTERVAL_MS: 'soon' },
      { CONNECTOR_TIMEOUT_MS: '0' },
      { CONNECTOR_TIMEOUT_MS: '600000' },
    ]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError,
        JSON.stringify(env),
      );
    }
  });
});

for (const engine of ENGINES) {
  describe(`connector health (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let peer: Awaited<ReturnType<typeof startHealthPeer>>;
    let httpId: string;
    let noopId: string;

    before(async () => {
      t = await createTestApp(engine, {
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        CONNECTOR_HEALTH_INTERVAL_MS: '30000',
      });
      owner = await t.ownerHeaders('acme');
      peer = await startHealthPeer();
      const created = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'http',
          name: 'deployer',
          targetSystem: 'acme/deploy',
          config: {
            url: `${peer.base}/execute`,
            healthUrl: `${peer.base}/healthz`,
            headers: { 'x-receiver-key': 'k-1' },
          },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      httpId = created.json().id;
      const noop = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: { type: 'noop', name: 'dry run', targetSystem: 'acme/dry', config: {} },
      });
      noopId = noop.json().id;
    });
    after(async () => {
      await peer.close();
      await t.close();
    });

    const test = (id: string) =>
      t.app.inject({ method: 'POST', url: `/connectors/${id}/test`, headers: owner });
    const view = async (id: string) => {
      const res = await t.app.inject({ method: 'GET', url: '/connectors', headers: owner });
      return res.json().connectors.find((c: { id: string }) => c.id === id);
    };

    it('tests with a real GET of healthUrl carrying the configured headers, and records healthy', async () => {
      const before = peer.gets.length;
      const res = await test(httpId);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        connectorId: httpId,
        ok: true,
        latencyMs: res.json().latencyMs,
        checkedAt: new Date(t.clock()).toISOString(),
      });
      assert.ok(Number.isInteger(res.json().latencyMs));
      assert.equal(peer.gets.length, before + 1);
      assert.equal(peer.gets.at(-1)?.path, '/healthz');
      assert.equal(peer.gets.at(-1)?.headers['x-receiver-key'], 'k-1');
      assert.equal(peer.gets.at(-1)?.headers.authorization, undefined, 'no token on a health check');
      const listed = await view(httpId);
      assert.equal(listed.status, 'healthy');
      assert.equal(listed.latencyMs, res.json().latencyMs);
    });

    it('accepts an empty body with or without content-type (contract §1)', async () => {
      for (const headers of [{ ...owner, 'content-type': 'application/json' }, owner]) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/connectors/${noopId}/test`,
          headers,
          payload: '',
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().ok, true);
      }
      assert.equal((await view(noopId)).status, 'healthy');
    });

    it('records degraded on a 5xx answer and down when nothing answers', async () => {
      peer.answer(503);
      const degraded = await test(httpId);
      assert.equal(degraded.json().ok, false);
      assert.equal(degraded.json().error, 'HTTP 503');
      const listedDegraded = await view(httpId);
      assert.equal(listedDegraded.status, 'degraded');
      assert.equal(listedDegraded.lastError, 'HTTP 503');
      assert.ok(Number.isInteger(listedDegraded.latencyMs));
      peer.answer(204);

      const closed = await startHealthPeer();
      await closed.close();
      const res = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'http',
          name: 'gone',
          targetSystem: 'acme/gone',
          config: { url: `${closed.base}/x` },
        },
      });
      const down = await test(res.json().id);
      assert.equal(down.json().ok, false);
      assert.match(down.json().error, /^UNREACHABLE: ECONNREFUSED/);
      const listedDown = await view(res.json().id);
      assert.equal(listedDown.status, 'down');
      assert.equal(listedDown.latencyMs, null);
      await t.app.inject({ method: 'DELETE', url: `/connectors/${res.json().id}`, headers: owner });
    });

    it('checks each connector once per interval even with two instances checking (claims)', async () => {
      const second = createServices({
        config: t.config,
        storage: t.storage,
        clock: t.clock,
        masterKey: TEST_MASTER_KEY,
        onBackgroundError: (error) => {
          throw error;
        },
      });
      const checkers = [t.services.connectorHealth, second.connectorHealth];
      // Both connectors are due since creation; whichever instance claims one probes it.
      const before = peer.gets.length;
      const [a, b] = await Promise.all(checkers.map((checker) => checker.runOnce()));
      assert.equal((a ?? 0) + (b ?? 0), 2, 'the http and noop connectors, each checked once');
      assert.equal(peer.gets.length, before + 1);
      assert.deepEqual(
        await Promise.all(checkers.map((checker) => checker.runOnce())),
        [0, 0],
        'nothing is due again within the interval',
      );
      t.clock.advance(30_000);
      const again = await Promise.all(checkers.map((checker) => checker.runOnce()));
      assert.equal((again[0] ?? 0) + (again[1] ?? 0), 2);
      assert.equal(peer.gets.length, before + 2);
    });

    it('keeps forTarget at most 5 s stale across instances and fresh in the instance that changed it', async () => {
      const second: Services = createServices({
        config: t.config,
        storage: t.storage,
        clock: t.clock,
        masterKey: TEST_MASTER_KEY,
        onBackgroundError: () => {},
      });
      assert.equal(await second.connectors.forTarget('acme', 'acme/cached'), undefined);
      assert.equal(await t.services.connectors.forTarget('acme', 'acme/cached'), undefined);
      const created = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: { type: 'noop', name: 'c', targetSystem: 'acme/cached', config: {}, autoExecute: true },
      });
      const id = created.json().id;
      assert.equal(
        (await t.services.connectors.forTarget('acme', 'acme/cached'))?.id,
        id,
        'this instance at once',
      );
      assert.equal(
        await second.connectors.forTarget('acme', 'acme/cached'),
        undefined,
        'still cached elsewhere',
      );
      t.clock.advance(4_999);
      assert.equal(await second.connectors.forTarget('acme', 'acme/cached'), undefined);
      t.clock.advance(1);
      const seen = await second.connectors.forTarget('acme', 'acme/cached');
      assert.equal(seen?.id, id, 'another instance within 5 s');
      assert.equal(seen?.autoExecute, true);
      assert.equal(seen?.type, 'noop');
      assert.equal(await second.connectors.forTarget('globex', 'acme/cached'), undefined, 'per tenant');

      await t.app.inject({ method: 'DELETE', url: `/connectors/${id}`, headers: owner });
      assert.equal(await t.services.connectors.forTarget('acme', 'acme/cached'), undefined);
      t.clock.advance(5_000);
      assert.equal(await second.connectors.forTarget('acme', 'acme/cached'), undefined);
    });
  });

  describe(`background health check started by buildServer (${engine})`, () => {
    it('probes every CONNECTOR_HEALTH_INTERVAL_MS and moves the status with the peer', async () => {
      const peer = await startHealthPeer();
      const testStorage = await createTestStorage(engine);
      const config = loadConfig({ EGRESS_ALLOW_CIDRS: '127.0.0.1/32', CONNECTOR_HEALTH_INTERVAL_MS: '50' });
      const app = await buildServer({
        config,
        storage: testStorage.storage,
        clock: systemClock,
        masterKey: TEST_MASTER_KEY,
      });
      try {
        await app.ready();
        const tenant = await createTenantService(testStorage.storage, systemClock).create({
          id: 'acme',
          plan: 'pro',
        });
        const headers = { authorization: `Bearer ${tenant.ownerKey.key}`, 'x-tenant-id': 'acme' };
        const created = await app.inject({
          method: 'POST',
          url: '/connectors',
          headers,
          payload: { type: 'http', name: 'p', targetSystem: 'acme/p', config: { url: `${peer.base}/run` } },
        });
        assert.equal(created.statusCode, 201, created.body);
        const statusBecomes = async (status: string) => {
          const deadline = Date.now() + 5_000;
          for (;;) {
            const res = await app.inject({ method: 'GET', url: '/connectors', headers });
            const connector = res.json().connectors[0];
            if (connector.status === status) return connector;
            if (Date.now() > deadline) assert.fail(`status stayed ${connector.status}, expected ${status}`);
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        };
        const healthy = await statusBecomes('healthy');
        assert.ok(healthy.lastCheckedAt !== null);
        const checks = peer.gets.length;
        peer.answer(500);
        await statusBecomes('degraded');
        assert.ok(peer.gets.length > checks, 'checked again without being asked');
      } finally {
        await app.close();
        await peer.close();
        await testStorage.dispose();
      }
    });
  });
}

describe('health checker failures', () => {
  it('reports a failing check to onError and goes on with the others', async () => {
    const testStorage = await createTestStorage('sqlite');
    try {
      const now = 1_000;
      await createTenantService(testStorage.storage, () => now).create({ id: 'acme', plan: 'pro' });
      for (const [id, target] of [
        ['c-1', 'acme/a'],
        ['c-2', 'acme/b'],
      ]) {
        await testStorage.storage.db
          .insertInto('connectors')
          .values({
            tenant_id: 'acme',
            id: id as string,
            type: 'noop',
            name: 'n',
            target_system: target as string,
            auto_execute: 0,
            config: '{}',
            secrets: null,
            status: 'unknown',
            last_checked_at: null,
            latency_ms: null,
            last_error: null,
            next_check_at: now,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
      const errors: unknown[] = [];
      const checked: string[] = [];
      const checker = createHealthChecker({
        storage: testStorage.storage,
        clock: () => now,
        intervalMs: 100,
        check: async (connector) => {
          if (connector.id === 'c-1') throw new Error('probe broke');
          checked.push(connector.id);
        },
        onError: (error) => errors.push(error),
      });
      assert.equal(await checker.runOnce(), 2);
      assert.deepEqual(checked, ['c-2']);
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]), /probe broke/);
    } finally {
      await testStorage.dispose();
    }
  });
});
