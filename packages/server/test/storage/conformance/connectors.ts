import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Connector } from '../../../src/connectors/connector.js';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function connector(tenantId: string, id: string, targetSystem: string, createdAt: number): Connector {
  return {
    id,
    tenantId,
    name: `connector ${id}`,
    targetSystem,
    autoExecute: true,
    sealedSecrets: 'sealed',
    createdAt,
    type: 'http',
    settings: { url: 'https://receiver.example/execute', healthUrl: null },
  };
}

/** Connectors and their health checks. */
export function connectorConformance(c: Conformance): void {
  describe('connectors', () => {
    it('stores one connector per tenant and target, reads it back with health, and deletes it', async () => {
      const { connectorRepository: connectors } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const payments = connector(tenant, 'c2', 'acme/payments', 10);
      await c.storage.writeTransaction(async (trx) => {
        await connectors.insert(trx, payments);
        await connectors.insert(trx, connector(tenant, 'c1', 'acme/api', 10));
        await connectors.insert(trx, connector(other, 'c2', 'acme/payments', 10));
      });
      await assert.rejects(
        c.storage.writeTransaction((trx) =>
          connectors.insert(trx, connector(tenant, 'c3', 'acme/payments', 11)),
        ),
        (e) => isUniqueViolation(e),
      );
      assert.equal(await connectors.count(c.storage.db, tenant), 2);
      assert.deepEqual(
        (await connectors.listByTenant(c.storage.db, tenant)).map((x) => x.connector.id),
        ['c1', 'c2'],
      );
      assert.deepEqual(await connectors.get(c.storage.db, tenant, 'c2'), {
        connector: payments,
        status: 'unknown',
        lastCheckedAt: null,
        latencyMs: null,
        lastError: null,
      });
      await connectors.recordHealth(c.storage.db, tenant, 'c2', {
        status: 'degraded',
        checkedAt: 20,
        latencyMs: 35,
        error: 'HTTP 503',
      });
      const checked = await connectors.get(c.storage.db, tenant, 'c2');
      assert.deepEqual(
        [checked?.status, checked?.lastCheckedAt, checked?.latencyMs, checked?.lastError],
        ['degraded', 20, 35, 'HTTP 503'],
      );
      assert.equal((await connectors.get(c.storage.db, other, 'c2'))?.status, 'unknown');
      await c.storage.writeTransaction(async (trx) => {
        assert.equal((await connectors.get(trx, tenant, 'c1', { forUpdate: true }))?.connector.id, 'c1');
        await connectors.delete(trx, tenant, 'c1');
      });
      assert.equal(await connectors.get(c.storage.db, tenant, 'c1'), undefined);
      assert.equal(await connectors.count(c.storage.db, other), 1);
    });

    it('lists due checks oldest first, and lets exactly one claim each', async () => {
      const { connectorRepository: connectors } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction(async (trx) => {
        await connectors.insert(trx, connector(tenant, 'late', 'acme/late', 300));
        await connectors.insert(trx, connector(tenant, 'early', 'acme/early', 200));
        await connectors.insert(trx, connector(tenant, 'future', 'acme/future', 9_000_000_000_000));
      });
      const due = (await connectors.due(c.storage.db, 1_000, 1_000)).filter(
        (d) => d.connector.tenantId === tenant,
      );
      assert.deepEqual(
        due.map((d) => [d.connector.id, d.nextCheckAtMs]),
        [
          ['early', 200],
          ['late', 300],
        ],
      );
      const [early] = due;
      assert.ok(early);
      const claims = await Promise.all([
        connectors.claim(c.storage.db, early, 5_000),
        connectors.claim(c.storage.db, early, 5_000),
      ]);
      assert.deepEqual(claims.sort(), [false, true]);
      assert.ok(
        !(await connectors.due(c.storage.db, 1_000, 1_000)).some((d) => d.connector.id === 'early'),
        'a claimed check is due again only at its next time',
      );
    });
  });
}
