import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createGroupCommit } from '../../src/storage/group-commit.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`group commit (${engine})`, () => {
    let t: TestStorage;
    let transactions = 0;

    before(async () => {
      t = await createTestStorage(engine);
      await t.storage.db
        .insertInto('tenants')
        .values(
          ['acme', 'globex'].map((id) => ({
            id,
            name: id,
            plan: 'pro',
            rate_limit_per_minute: null,
            kill_switch_enabled: 0,
            kill_switch_reason: null,
            kill_switch_changed_by: null,
            kill_switch_changed_at: null,
            ip_allowlist: '[]',
            created_at: 0,
            updated_at: 0,
          })),
        )
        .execute();
    });
    after(async () => {
      await t.dispose();
    });

    /** Each item inserts an actor row; an item named "poison" writes a row twice and fails. */
    const commits = () =>
      createGroupCommit<string, string>({
        storage: t.storage,
        maxBatch: 8,
        async apply(trx, items) {
          transactions += 1;
          for (const item of items) {
            const row = {
              tenant_id: 'acme',
              actor_id: item,
              status: 'active',
              reason: null,
              updated_at: 0,
              updated_by: 'test',
            };
            await trx.insertInto('authority_actors').values(row).execute();
            if (item.startsWith('poison')) await trx.insertInto('authority_actors').values(row).execute();
          }
          return items.map((item) => `${item}:committed`);
        },
      });

    const stored = async (prefix: string) =>
      (
        await t.storage.db
          .selectFrom('authority_actors')
          .select('actor_id')
          .where('actor_id', 'like', `${prefix}%`)
          .execute()
      )
        .map((row) => row.actor_id)
        .sort();

    it('commits items submitted together in batches of at most maxBatch, each answered with its own result', async () => {
      const group = commits();
      transactions = 0;
      const names = Array.from({ length: 20 }, (_, i) => `a-${String(i).padStart(2, '0')}`);
      const results = await Promise.all(names.map((name) => group.submit(name)));
      assert.deepEqual(
        results,
        names.map((name) => `${name}:committed`),
      );
      assert.equal(transactions, 3, 'twenty concurrent items in batches of 8, 8 and 4');
      assert.deepEqual(await stored('a-'), names);
    });

    it('hands apply a batch in lockKey order, then submission order, and answers each item its own result', async () => {
      const seen: string[][] = [];
      const group = createGroupCommit<string, string>({
        storage: t.storage,
        maxBatch: 8,
        lockKey: (item) => item.split('/')[0] as string,
        async apply(_trx, items) {
          seen.push([...items]);
          return items.map((item) => `${item}:committed`);
        },
      });
      const names = ['globex/1', 'acme/1', 'globex/2', 'acme/2', 'initech/1'];
      const results = await Promise.all(names.map((name) => group.submit(name)));
      assert.deepEqual(
        results,
        names.map((name) => `${name}:committed`),
      );
      assert.deepEqual(seen, [['acme/1', 'acme/2', 'globex/1', 'globex/2', 'initech/1']]);
    });

    it('retries a failed batch item by item: the poisoned item fails alone, nothing of it is stored', async () => {
      const group = commits();
      const outcomes = await Promise.allSettled(
        ['b-1', 'poison-b', 'b-2', 'b-3'].map((name) => group.submit(name)),
      );
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.deepEqual(await stored('b-'), ['b-1', 'b-2', 'b-3']);
      assert.deepEqual(await stored('poison-b'), []);
    });

    it('writes a batch PostgreSQL aborted to break a deadlock again, rather than failing it', {
      skip: engine !== 'postgres',
    }, async () => {
      // The batch locks row X then Y; another transaction locks Y then X. The batch's deadlock
      // timeout is the shorter, so PostgreSQL aborts the batch; the second attempt then runs alone.
      const row = (trx: typeof t.storage.db, id: string) =>
        trx.updateTable('tenants').set({ updated_at: 1 }).where('id', '=', id).execute();
      let xLocked!: () => void;
      const xReady = new Promise<void>((resolve) => {
        xLocked = resolve;
      });
      let yLocked!: () => void;
      const yReady = new Promise<void>((resolve) => {
        yLocked = resolve;
      });
      let attempts = 0;
      const group = createGroupCommit<string, string>({
        storage: t.storage,
        maxBatch: 8,
        async apply(trx, items) {
          attempts += 1;
          await sql`set local deadlock_timeout = '50ms'`.execute(trx);
          await row(trx, 'acme');
          xLocked();
          await yReady;
          await row(trx, 'globex');
          return items.map((item) => `${item}:committed`);
        },
      });
      const other = t.storage.writeTransaction(async (trx) => {
        await row(trx, 'globex');
        yLocked();
        await xReady;
        await row(trx, 'acme');
      });
      const [outcome] = await Promise.allSettled([group.submit('d-1'), other]);
      assert.deepEqual(outcome, { status: 'fulfilled', value: 'd-1:committed' });
      assert.equal(attempts, 2, 'aborted once by the deadlock, then written');
    });

    it('fails every item of the batch when the database is gone, and acknowledges none', async () => {
      const lost = await createTestStorage(engine);
      await lost.storage.close();
      const group = createGroupCommit<string, string>({
        storage: lost.storage,
        maxBatch: 8,
        apply: async (_trx, items) => items.map((item) => item),
      });
      const outcomes = await Promise.allSettled(['c-1', 'c-2', 'c-3'].map((name) => group.submit(name)));
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['rejected', 'rejected', 'rejected'],
      );
      await lost.dispose();
    });
  });
}
