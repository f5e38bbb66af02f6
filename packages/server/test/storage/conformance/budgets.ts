import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

/** Budget lists and their counters (contract §16). */
export function budgetConformance(c: Conformance): void {
  describe('budgets and their counters', () => {
    it('stores, replaces and reads a tenant’s budget list, per tenant', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { budgetRepository } = c.repos;
      assert.equal(await budgetRepository.getSet(c.storage.db, tenant), undefined);
      await c.storage.writeTransaction((trx) =>
        budgetRepository.putSet(trx, tenant, { budgets: '[1]', updatedAt: 5, updatedBy: 'k1' }),
      );
      await c.storage.writeTransaction((trx) =>
        budgetRepository.putSet(trx, tenant, { budgets: '[2]', updatedAt: 6, updatedBy: 'k2' }),
      );
      assert.deepEqual(await budgetRepository.getSet(c.storage.db, tenant), {
        budgets: '[2]',
        updatedAt: 6,
        updatedBy: 'k2',
      });
      assert.equal(await budgetRepository.getSet(c.storage.db, other), undefined);
    });

    it('takes units up to the maximum, gives one back, and reads the counters of given windows', async () => {
      const tenant = await newTenant(c);
      const { budgetRepository } = c.repos;
      const key = { tenantId: tenant, actorId: 'bot', budgetId: 'b', windowStart: 3_600_000 };
      const take = () => c.storage.writeTransaction((trx) => budgetRepository.take(trx, key, 2));
      assert.deepEqual(await take(), { taken: true, approved: 1 });
      assert.deepEqual(await take(), { taken: true, approved: 2 });
      assert.deepEqual(await take(), { taken: false, approved: 2 });
      await c.storage.writeTransaction((trx) => budgetRepository.giveBack(trx, key));
      assert.deepEqual(await take(), { taken: true, approved: 2 });
      await c.storage.writeTransaction((trx) =>
        budgetRepository.take(trx, { ...key, windowStart: 7_200_000 }, 5),
      );
      await c.storage.writeTransaction((trx) => budgetRepository.take(trx, { ...key, actorId: 'other' }, 5));
      assert.deepEqual(await budgetRepository.counters(c.storage.db, tenant, 'bot', [3_600_000]), [
        { budgetId: 'b', windowStart: 3_600_000, approved: 2 },
      ]);
      const both = await budgetRepository.counters(c.storage.db, tenant, 'bot', [3_600_000, 7_200_000]);
      assert.deepEqual(
        both.map((x) => [x.windowStart, x.approved]).sort((a, b) => (a[0] as number) - (b[0] as number)),
        [
          [3_600_000, 2],
          [7_200_000, 1],
        ],
      );
      assert.deepEqual(await budgetRepository.counters(c.storage.db, tenant, 'bot', []), []);
    });

    it('a rolled-back take leaves the count as it was', async () => {
      const tenant = await newTenant(c);
      const { budgetRepository } = c.repos;
      const key = { tenantId: tenant, actorId: 'bot', budgetId: 'b', windowStart: 0 };
      await assert.rejects(
        c.storage.writeTransaction(async (trx) => {
          await budgetRepository.take(trx, key, 1);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.deepEqual(await budgetRepository.counters(c.storage.db, tenant, 'bot', [0]), []);
    });
    it('deletes the counters of windows that started before a time, of every tenant, and no later ones', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { budgetRepository } = c.repos;
      // Far in the future, so that the other sections' counters are older still and deleted too.
      const past = 4_000_000_000_000;
      const current = past + 86_400_000;
      for (const [tenantId, windowStart] of [
        [tenant, past],
        [tenant, current],
        [other, past],
      ] as const) {
        await c.storage.writeTransaction((trx) =>
          budgetRepository.take(trx, { tenantId, actorId: 'bot', budgetId: 'b', windowStart }, 5),
        );
      }
      const deleted = await c.storage.writeTransaction((trx) => budgetRepository.deletePast(trx, current));
      assert.ok(deleted >= 2, `deleted ${deleted}`);
      assert.deepEqual(await budgetRepository.counters(c.storage.db, tenant, 'bot', [past, current]), [
        { budgetId: 'b', windowStart: current, approved: 1 },
      ]);
      assert.deepEqual(await budgetRepository.counters(c.storage.db, other, 'bot', [past]), []);
      assert.equal(await c.storage.writeTransaction((trx) => budgetRepository.deletePast(trx, current)), 0);
    });
  });
}
