import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { engineOf } from '../../src/storage/database.js';
import { forUpdate } from '../../src/storage/row-lock.js';
import type { Database } from '../../src/storage/schema.js';
import { tenantRepository } from '../../src/tenancy/tenant-repository.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`row locks (${engine})`, () => {
    let t: TestStorage;
    before(async () => {
      t = await createTestStorage(engine);
      await tenantRepository.insert(
        t.storage.db,
        { id: 'acme', name: 'Acme', plan: 'pro', rateLimitPerMinute: null },
        1,
      );
    });
    after(async () => {
      await t.dispose();
    });

    it('knows the engine of the storage’s executors and refuses one it did not hand out', async () => {
      assert.equal(engineOf(t.storage.db), engine);
      assert.equal(await t.storage.writeTransaction(async (trx) => engineOf(trx)), engine);
      // A query builder with no database behind it, made outside any Storage.
      const stranger = new Kysely<Database>({
        dialect: {
          createAdapter: () => new SqliteAdapter(),
          createDriver: () => new DummyDriver(),
          createIntrospector: (db) => new SqliteIntrospector(db),
          createQueryCompiler: () => new SqliteQueryCompiler(),
        },
      });
      assert.throws(() => engineOf(stranger), /does not come from a Storage/);
    });

    it('adds FOR UPDATE on PostgreSQL only', () => {
      const query = forUpdate(
        t.storage.db,
        t.storage.db.selectFrom('tenants').select('id').where('id', '=', 'acme'),
      );
      const text = query.compile().sql;
      assert.equal(/for update/i.test(text), engine === 'postgres', text);
    });

    it('makes a second transaction wait for the row another one locked', async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked: () => void = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const first = t.storage.writeTransaction(async (trx) => {
        await tenantRepository.lock(trx, 'acme');
        locked();
        await held;
      });
      await lockTaken;
      const second = t.storage.writeTransaction(async (trx) => {
        if (engine === 'postgres') await sql`set local lock_timeout = '200ms'`.execute(trx);
        await tenantRepository.lock(trx, 'acme');
      });
      if (engine === 'postgres') {
        // 55P03 lock_not_available: the row lock held the second transaction off.
        await assert.rejects(second, (error: { code?: string }) => error.code === '55P03');
      } else {
        // SQLite serializes whole write transactions: the second waits for the first to commit.
        let done = false;
        const waiting = second.then(() => {
          done = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(done, false);
        release();
        await waiting;
      }
      release();
      await first;
    });
  });
}
