import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type App, buildServer } from '../../src/app/build-server.js';
import { createServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/config.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import { bearer, type Headers, manualClock, TEST_MASTER_KEY } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { clearState, ROBOT, tokenBody } from '../physical-api/fixtures.js';

const databaseUrl = process.env.DATABASE_URL;
const TENANTS = ['t-a', 't-b', 't-c', 't-d'];
const ROUNDS = 20;

/**
 * Two instances on one PostgreSQL database, each group-committing decisions of the same tenants
 * in the opposite order. Each batch must lock the tenants' rows in one order, or the two deadlock
 * (PostgreSQL then aborts one after its deadlock timeout). The test runs in a database of its own,
 * so that the server's deadlock count is this test's alone.
 */
describe('two instances committing the same tenants in opposite orders (postgres)', {
  skip: databaseUrl === undefined,
}, () => {
  const database = `lock_order_${randomBytes(5).toString('hex')}`;
  const url = new URL(databaseUrl ?? 'postgres://unused');
  url.pathname = `/${database}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  const clock = manualClock(Date.now());
  const storages: Storage[] = [];
  const apps: App[] = [];
  const headers = new Map<string, Headers>();

  before(async () => {
    await admin.connect();
    await admin.query(`create database ${database}`);
    const config = loadConfig({});
    for (let instance = 0; instance < 2; instance += 1) {
      const storage = openStorage({ databaseUrl: url.toString(), poolSize: 4 });
      storages.push(storage);
      if (instance === 0) await storage.migrate();
      const services = createServices({
        config,
        storage,
        clock,
        masterKey: TEST_MASTER_KEY,
        onBackgroundError: () => {},
      });
      const app = await buildServer({
        config,
        storage,
        clock,
        masterKey: TEST_MASTER_KEY,
        services,
        backgroundJobs: false,
      });
      await app.ready();
      apps.push(app);
    }
    const tenants = createTenantService(storages[0] as Storage, clock);
    for (const id of TENANTS) {
      const created = await tenants.create({ id, plan: 'enterprise', rateLimitPerMinute: 100_000 });
      headers.set(id, bearer(created.ownerKey.key, id));
      const registered = await (apps[0] as App).inject({
        method: 'POST',
        url: '/v1/physical/actors',
        headers: headers.get(id),
        payload: { actorIdentity: ROBOT, actorKind: 'robot' },
      });
      assert.equal(registered.statusCode, 200, registered.body);
    }
  });
  after(async () => {
    for (const app of apps) await app.close();
    for (const storage of storages) await storage.close();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  });

  it('decisions and physical ALLOWs of both instances commit without a deadlock', async () => {
    const answers: Array<Promise<{ statusCode: number; body: string }>> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [instance, app] of apps.entries()) {
        const order = instance === 0 ? TENANTS : [...TENANTS].reverse();
        for (const id of order) {
          answers.push(
            app.inject({
              method: 'POST',
              url: '/intent',
              headers: headers.get(id),
              payload: intentPayload('list open pull requests', {}, id),
            }),
            app.inject({
              method: 'POST',
              url: '/v1/physical/authority-tokens',
              headers: headers.get(id),
              payload: tokenBody({ physicalState: clearState(clock()) }),
            }),
          );
        }
      }
      for (const answer of await Promise.all(answers.splice(0))) {
        assert.equal(answer.statusCode, 200, answer.body);
      }
    }
    // A backend reports its deadlocks to the statistics when it exits: close both instances' pools
    // and wait for their connections to be gone before reading the count.
    for (const app of apps.splice(0)) await app.close();
    for (const storage of storages.splice(0)) await storage.close();
    const connected = async () =>
      Number(
        (await admin.query('select count(*) as n from pg_stat_activity where datname = $1', [database]))
          .rows[0].n,
      );
    for (let wait = 0; wait < 100 && (await connected()) > 0; wait += 1) await sleep(50);
    assert.equal(await connected(), 0, 'the instances disconnected');
    const { rows } = await admin.query('select deadlocks from pg_stat_database where datname = $1', [
      database,
    ]);
    assert.equal(Number(rows[0].deadlocks), 0, 'deadlocks between the two instances');
  });
});
