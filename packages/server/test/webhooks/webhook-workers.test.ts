import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildServer, type ServerDeps } from '../../src/app/build-server.js';
import { loadConfig } from '../../src/config/config.js';
import type { Resolver } from '../../src/egress/egress-client.js';
import type { Clock } from '../../src/foundation/clock.js';
import { systemClock } from '../../src/foundation/clock.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import { deliveryRepository } from '../../src/webhooks/delivery-repository.js';
import { enqueueEvent } from '../../src/webhooks/outbox.js';
import { recordAttempt } from '../../src/webhooks/record-attempt.js';
import {
  bearer,
  createTestApp,
  type Headers,
  manualClock,
  TEST_MASTER_KEY,
  type TestApp,
} from '../helpers/app.js';
import { logCapture } from '../helpers/output.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';
import { createEndpoint, deliveryRow, enqueueDecision, testWorker } from './fixtures.js';
import { type Receiver, startReceiver } from './receiver.js';

/** A server over an existing test database, so other handles (instances) can open the same one. */
async function serverOver(
  testStorage: TestStorage,
  clock: Clock,
  env: Record<string, string>,
  backgroundJobs: boolean,
  logger?: ServerDeps['logger'],
): Promise<{ app: App; headers: Headers }> {
  const config = loadConfig({ ALLOW_PRIVATE_EGRESS: '1', ...env });
  const app = await buildServer({
    config,
    storage: testStorage.storage,
    clock,
    masterKey: TEST_MASTER_KEY,
    backgroundJobs,
    ...(logger === undefined ? {} : { logger }),
  });
  await app.ready();
  const created = await createTenantService(testStorage.storage, clock).create({ id: 'fleet', plan: 'pro' });
  return { app, headers: bearer(created.ownerKey.key, 'fleet') };
}

function openInstance(engine: string, testStorage: TestStorage): Storage {
  return engine === 'sqlite'
    ? openStorage({ sqliteFile: testStorage.location.sqliteFile })
    : openStorage({
        databaseUrl: process.env.DATABASE_URL,
        pgSchema: testStorage.location.pgSchema,
        poolSize: 3,
      });
}

async function registerEndpoint(app: App, headers: Headers, url: string): Promise<void> {
  const response = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers,
    payload: { url, events: ['*'] },
  });
  assert.equal(response.statusCode, 201, response.body);
}

for (const engine of ENGINES) {
  describe(`webhook workers and the egress guard (${engine})`, () => {
    let t: TestApp;
    let receiver: Receiver;

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    it('a delivery whose worker died mid-send is sent again once its lease runs out; the dead worker records nothing', async () => {
      const headers = await t.ownerHeaders('lease');
      await createEndpoint(t, headers, `${receiver.base}/lease`);
      const { deliveryIds } = await enqueueDecision(t, 'lease');
      // A worker claims the delivery and dies before recording anything.
      const [orphan] = await deliveryRepository.claimDue(t.storage, t.clock(), { limit: 10, leaseMs: 5_000 });
      assert.ok(orphan);
      assert.equal(orphan.id, deliveryIds[0]);
      const worker = testWorker(t);
      assert.equal(await worker.runOnce(), 0, 'leased: nobody else sends it meanwhile');
      t.clock.advance(5_000);
      assert.equal(await worker.runOnce(), 1);
      assert.deepEqual(
        [(await deliveryRow(t, 'lease', deliveryIds[0] as string)).status, receiver.received.length],
        ['succeeded', 1],
      );
      const late = await recordAttempt(
        t.storage,
        orphan,
        { status: 'dead', statusCode: 500, error: 'late' },
        t.clock(),
      );
      assert.equal(late, false);
      assert.equal((await deliveryRow(t, 'lease', deliveryIds[0] as string)).status, 'succeeded');
    });

    it('several instances claiming at once deliver every event exactly once between them', async () => {
      const testStorage = await createTestStorage(engine);
      const clock = manualClock();
      const { app, headers } = await serverOver(testStorage, clock, {}, false);
      const instances: Storage[] = [];
      try {
        await registerEndpoint(app, headers, `${receiver.base}/fleet`);
        const events = new Set<string>();
        for (let i = 0; i < 40; i += 1) {
          const { eventId } = await testStorage.storage.writeTransaction((trx) =>
            enqueueEvent(trx, 'fleet', {
              event: 'decision.completed',
              intentId: `intent-${i}`,
              decision: 'APPROVED',
              riskScore: i,
              occurredAt: clock(),
            }),
          );
          events.add(eventId);
        }
        for (let i = 0; i < 3; i += 1) instances.push(openInstance(engine, testStorage));
        const workers = instances.map((storage) => testWorker(t, { storage, clock, batchSize: 5 }));
        const drain = async (worker: (typeof workers)[number]) => {
          let claimed = 1;
          while (claimed > 0) claimed = await worker.runOnce();
        };
        await Promise.all(workers.map(drain));
        const ids = receiver.received
          .filter((r) => r.path === '/fleet')
          .map((r) => JSON.parse(r.rawBody).eventId);
        assert.equal(ids.length, 40, 'no delivery sent twice');
        assert.deepEqual(new Set(ids), events, 'and none lost');
      } finally {
        await Promise.all(instances.map((s) => s.close()));
        await app.close();
        await testStorage.dispose();
      }
    });

    it('logs each failed delivery (info, retried) and a dead letter (warn), with ids and never the payload', async () => {
      const testStorage = await createTestStorage(engine);
      const { stream, lines } = logCapture();
      const { app, headers } = await serverOver(
        testStorage,
        systemClock,
        { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE_MS: '10,10' },
        true,
        { level: 'info', stream },
      );
      receiver.respond(({ path }) => (path === '/failing' ? 500 : 204));
      try {
        await registerEndpoint(app, headers, `${receiver.base}/failing`);
        await testStorage.storage.writeTransaction((trx) =>
          enqueueEvent(trx, 'fleet', {
            event: 'chain.break',
            brokenAt: 7,
            reason: 'INDEX_GAP',
            occurredAt: Date.now(),
          }),
        );
        const deadline = Date.now() + 10_000;
        while (
          !lines.some((l) => l.level === 40 && l.msg.startsWith('webhook delivery dead')) &&
          Date.now() < deadline
        ) {
          await new Promise((r) => setTimeout(r, 10));
        }
        const retried = lines.filter((l) => l.msg === 'webhook delivery failed; it will be retried');
        const dead = lines.filter((l) => l.msg.startsWith('webhook delivery dead'));
        assert.deepEqual(
          retried.map((l) => [l.level, (l.webhook as { attempt: number }).attempt]),
          [
            [30, 1],
            [30, 2],
          ],
        );
        assert.equal(dead.length, 1);
        const facts = dead[0]?.webhook as Record<string, unknown>;
        assert.deepEqual(
          [facts.tenantId, facts.attempt, facts.statusCode, facts.error],
          ['fleet', 3, 500, 'HTTP 500'],
        );
        assert.ok(!JSON.stringify([...retried, ...dead]).includes('INDEX_GAP'), 'never the payload');
      } finally {
        receiver.respond(() => 204);
        await app.close();
        await testStorage.dispose();
      }
    });

    it('buildServer runs the worker in the background and stops it on close', async () => {
      const testStorage = await createTestStorage(engine);
      const { app, headers } = await serverOver(testStorage, systemClock, { WEBHOOK_POLL_MS: '20' }, true);
      const count = () => receiver.received.filter((r) => r.path === '/background').length;
      let closed = false;
      try {
        await registerEndpoint(app, headers, `${receiver.base}/background`);
        await testStorage.storage.writeTransaction((trx) =>
          enqueueEvent(trx, 'fleet', {
            event: 'chain.break',
            brokenAt: 3,
            reason: 'INDEX_GAP',
            occurredAt: Date.now(),
          }),
        );
        const deadline = Date.now() + 5_000;
        while (count() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.equal(count(), 1, 'delivered without anyone driving the worker');
        await app.close();
        closed = true;
        await testStorage.storage.writeTransaction((trx) =>
          enqueueEvent(trx, 'fleet', {
            event: 'chain.break',
            brokenAt: 4,
            reason: 'INDEX_GAP',
            occurredAt: Date.now(),
          }),
        );
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(count(), 1, 'a closed server sends nothing');
      } finally {
        if (!closed) await app.close();
        await testStorage.dispose();
      }
    });

    it('refuses a private address at connect time even when the name resolved publicly when saved (DNS rebinding)', async () => {
      let answer = '93.184.216.34';
      const resolver: Resolver = async () => [answer];
      const guarded = await createTestApp(engine, {}, undefined, { resolver });
      try {
        const headers = await guarded.ownerHeaders('rebind');
        const port = new URL(receiver.base).port;
        await createEndpoint(guarded, headers, `http://rebind.example.test:${port}/rebind`);
        answer = '127.0.0.1';
        const { deliveryIds } = await enqueueDecision(guarded, 'rebind');
        assert.equal(await testWorker(guarded, { resolver }).runOnce(), 1);
        const row = await deliveryRow(guarded, 'rebind', deliveryIds[0] as string);
        assert.equal(row.status, 'retrying');
        assert.equal(row.last_status_code, null);
        assert.match(row.last_error ?? '', /^egress refused: refusing to connect to rebind\.example\.test/);
        assert.equal(
          receiver.received.filter((r) => r.path === '/rebind').length,
          0,
          'no connection was made',
        );
      } finally {
        await guarded.close();
      }
    });

    it('EGRESS_ALLOW_CIDRS opens the chosen range only', async () => {
      const opened = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' });
      try {
        const headers = await opened.ownerHeaders('cidr');
        await createEndpoint(opened, headers, `${receiver.base}/cidr`);
        for (const url of ['http://127.0.0.2/x', 'http://10.0.0.1/x', 'http://[::1]/x']) {
          const refused = await opened.app.inject({
            method: 'POST',
            url: '/webhooks',
            headers,
            payload: { url, events: ['*'] },
          });
          assert.equal(refused.statusCode, 400, url);
        }
        const { deliveryIds } = await enqueueDecision(opened, 'cidr');
        assert.equal(await testWorker(opened).runOnce(), 1);
        assert.equal((await deliveryRow(opened, 'cidr', deliveryIds[0] as string)).status, 'succeeded');
      } finally {
        await opened.close();
      }
    });
  });
}
