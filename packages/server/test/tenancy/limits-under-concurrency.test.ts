import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainRepository } from '../../src/chain/chain-repository.js';
import { MAX_CONNECTORS_PER_TENANT } from '../../src/connectors/connector-registry.js';
import { MAX_ENDPOINTS_PER_TENANT } from '../../src/webhooks/endpoint-service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

const LIMITS = [
  {
    what: 'webhook endpoints',
    url: '/webhooks',
    table: 'webhook_endpoints',
    limit: MAX_ENDPOINTS_PER_TENANT,
    payload: (n: number) => ({ url: `http://127.0.0.1:9/hook-${n}`, events: ['*'] }),
  },
  {
    what: 'connectors',
    url: '/connectors',
    table: 'connectors',
    limit: MAX_CONNECTORS_PER_TENANT,
    payload: (n: number) => ({
      type: 'noop',
      name: `dry run ${n}`,
      targetSystem: `acme/dry-${n}`,
      config: {},
    }),
  },
] as const;

for (const engine of ENGINES) {
  describe(`per-tenant limits under concurrent creates (${engine})`, () => {
    let t: TestApp;
    let headers: Record<string, string>;

    before(async () => {
      t = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' });
      headers = await t.ownerHeaders('acme');
    });
    after(async () => {
      await t.close();
    });

    for (const { what, url, table, limit, payload } of LIMITS) {
      it(`two creates at one below the limit of ${what}: one 201, one 409`, async () => {
        const create = (n: number) => t.app.inject({ method: 'POST', url, headers, payload: payload(n) });
        for (let n = 0; n < limit - 1; n++) assert.equal((await create(n)).statusCode, 201);
        // Both creates start while another transaction holds the tenant's audit head, so that on
        // PostgreSQL both would have counted limit - 1 before either commits without a lock of their own.
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const holder = t.storage.writeTransaction(async (trx) => {
          await chainRepository.lockHead(trx, 'acme', t.clock());
          await held;
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const both = Promise.all([create(limit), create(limit + 1)]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        release();
        await holder;
        const statuses = (await both).map((response) => response.statusCode).sort();
        assert.deepEqual(statuses, [201, 409]);
        const stored = await t.storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', 'acme')
          .executeTakeFirstOrThrow();
        assert.equal(Number(stored.n), limit);
      });
    }
  });
}
