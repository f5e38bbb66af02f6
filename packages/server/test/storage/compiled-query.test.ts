import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compiledQuery } from '../../src/storage/compiled-query.js';
import type { Executor } from '../../src/storage/database.js';
import { tenantRepository } from '../../src/tenancy/tenant-repository.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`compiled queries (${engine})`, () => {
    let t: TestStorage;
    before(async () => {
      t = await createTestStorage(engine);
      for (const id of ['acme', 'globex', 'initech']) {
        await tenantRepository.insert(
          t.storage.db,
          { id, name: id.toUpperCase(), plan: 'pro', rateLimitPerMinute: null },
          1,
        );
      }
    });
    after(async () => {
      await t.dispose();
    });

    it('answers what the query built on every call answers, for each new argument', async () => {
      let builds = 0;
      const byIdAndPlan = compiledQuery((db: Executor, [id, plan]: [string, string]) => {
        builds += 1;
        return db.selectFrom('tenants').select(['id', 'name']).where('id', '=', id).where('plan', '=', plan);
      });
      for (const id of ['acme', 'globex', 'initech', 'nobody']) {
        const built = await t.storage.db
          .selectFrom('tenants')
          .select(['id', 'name'])
          .where('id', '=', id)
          .where('plan', '=', 'pro')
          .execute();
        assert.deepEqual((await byIdAndPlan(t.storage.db, [id, 'pro'])).rows, built);
      }
      assert.deepEqual((await byIdAndPlan(t.storage.db, ['acme', 'free'])).rows, []);
      // Inside a transaction too, with the SQL compiled once for the engine.
      const inTransaction = await t.storage.writeTransaction((trx) => byIdAndPlan(trx, ['globex', 'pro']));
      assert.deepEqual(inTransaction.rows, [{ id: 'globex', name: 'GLOBEX' }]);
      assert.equal(builds, 1);
    });

    it('keeps the constants the builder writes and compiles each shape once', async () => {
      let builds = 0;
      const insert = compiledQuery(
        (db: Executor, rows: Array<{ id: string; name: string }>) => {
          builds += 1;
          return db.insertInto('tenants').values(
            rows.map((row) => ({
              ...row,
              plan: 'team',
              kill_switch_enabled: 0,
              ip_allowlist: '[]',
              created_at: 7,
              updated_at: 7,
            })),
          );
        },
        (rows) => rows.length,
      );
      await insert(t.storage.db, [{ id: 'a1', name: 'A1' }]);
      await insert(t.storage.db, [
        { id: 'b1', name: 'B1' },
        { id: 'b2', name: "B2 ' quoted" },
      ]);
      await insert(t.storage.db, [{ id: 'c1', name: 'C1' }]);
      assert.equal(builds, 2);
      const rows = await t.storage.db
        .selectFrom('tenants')
        .select(['id', 'name', 'plan', 'created_at'])
        .where('plan', '=', 'team')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((row) => ({ ...row, created_at: Number(row.created_at) })),
        [
          { id: 'a1', name: 'A1', plan: 'team', created_at: 7 },
          { id: 'b1', name: 'B1', plan: 'team', created_at: 7 },
          { id: 'b2', name: "B2 ' quoted", plan: 'team', created_at: 7 },
          { id: 'c1', name: 'C1', plan: 'team', created_at: 7 },
        ],
      );
    });

    it('binds null and refuses undefined', async () => {
      const byRate = compiledQuery((db: Executor, [id, rate]: [string, number | null]) =>
        db.updateTable('tenants').set({ rate_limit_per_minute: rate }).where('id', '=', id),
      );
      await byRate(t.storage.db, ['acme', 120]);
      await byRate(t.storage.db, ['globex', null]);
      const rates = await t.storage.db
        .selectFrom('tenants')
        .select(['id', 'rate_limit_per_minute'])
        .where('id', 'in', ['acme', 'globex'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rates.map((row) => [
          row.id,
          row.rate_limit_per_minute === null ? null : Number(row.rate_limit_per_minute),
        ]),
        [
          ['acme', 120],
          ['globex', null],
        ],
      );
      await assert.rejects(
        async () => byRate(t.storage.db, ['acme', undefined as unknown as null]),
        /undefined: pass null/,
      );
    });

    it('refuses a builder that drops an argument or changes one before binding it', async () => {
      const dropped = compiledQuery((db: Executor, [id]: [string, string]) =>
        db.selectFrom('tenants').select('id').where('id', '=', id),
      );
      await assert.rejects(async () => dropped(t.storage.db, ['acme', 'pro']), /bind every argument/);
      const changed = compiledQuery((db: Executor, [id]: [string]) =>
        db.selectFrom('tenants').select('id').where('id', '=', `${id}-suffix`),
      );
      await assert.rejects(async () => changed(t.storage.db, ['acme']), /changed before it was bound/);
      // Arguments whose structure differs from the shape they claim would bind out of place.
      const byShape = compiledQuery(
        (db: Executor, ids: string[]) => db.selectFrom('tenants').select('id').where('id', 'in', ids),
        () => 'always the same',
      );
      assert.deepEqual((await byShape(t.storage.db, ['acme'])).rows, [{ id: 'acme' }]);
      await assert.rejects(async () => byShape(t.storage.db, ['acme', 'globex']), /same structure/);
    });
  });
}
