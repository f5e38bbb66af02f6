import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

const w = (name: string, key = `${name}+00000000+key`) => ({
  name,
  url: `https://${name}.example/`,
  verifierKey: key,
});

/** The transparency log's witnesses: the set, push state, cosignatures. */
export function witnessConformance(c: Conformance): void {
  describe('log witnesses', () => {
    it('replaces a set, keeps the state of an unchanged witness and drops a removed or rekeyed one', async () => {
      const { witnessRepository: witnesses } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      assert.equal(await witnesses.get(c.storage.db, tenant), undefined);
      await c.storage.writeTransaction((trx) =>
        witnesses.replace(trx, tenant, { quorum: 2, witnesses: [w('a'), w('b'), w('c')] }, 100),
      );
      await c.storage.writeTransaction((trx) =>
        witnesses.replace(trx, other, { quorum: 0, witnesses: [w('a')] }, 100),
      );
      const set = await witnesses.get(c.storage.db, tenant);
      assert.equal(set?.quorum, 2);
      assert.deepEqual(
        set?.witnesses.map((x) => [x.name, x.position, x.cosigned_size, x.attempts, x.next_attempt_at]),
        [
          ['a', 0, 0, 0, 100],
          ['b', 1, 0, 0, 100],
          ['c', 2, 0, 0, 100],
        ],
      );
      for (const name of ['a', 'b', 'c']) {
        const recorded = await c.storage.writeTransaction((trx) =>
          witnesses.recordCosignature(trx, tenant, w(name), {
            treeSize: 7,
            rootHash: 'ab'.repeat(32),
            signatureLine: `— ${name} sig7\n`,
            at: 150,
          }),
        );
        assert.equal(recorded, true);
      }
      assert.deepEqual(await witnesses.cosignatureLines(c.storage.db, tenant, 7, 'ab'.repeat(32)), [
        '— a sig7\n',
        '— b sig7\n',
        '— c sig7\n',
      ]);
      assert.deepEqual(await witnesses.cosignatureLines(c.storage.db, tenant, 7, 'cd'.repeat(32)), []);
      assert.deepEqual(await witnesses.cosignatureLines(c.storage.db, other, 7, 'ab'.repeat(32)), []);

      // b keeps its key and moves to the front; c is rekeyed; a is removed.
      await c.storage.writeTransaction((trx) =>
        witnesses.replace(trx, tenant, { quorum: 1, witnesses: [w('b'), w('c', 'c+11111111+new')] }, 200),
      );
      const replaced = await witnesses.get(c.storage.db, tenant);
      assert.deepEqual(
        replaced?.witnesses.map((x) => [
          x.name,
          x.position,
          x.cosigned_size,
          x.cosigned_root,
          x.verifier_key,
        ]),
        [
          ['b', 0, 7, 'ab'.repeat(32), 'b+00000000+key'],
          ['c', 1, 0, null, 'c+11111111+new'],
        ],
      );
      assert.deepEqual(await witnesses.cosignatureLines(c.storage.db, tenant, 7, 'ab'.repeat(32)), [
        '— b sig7\n',
      ]);
      assert.equal(
        (await witnesses.get(c.storage.db, other))?.witnesses.length,
        1,
        'another tenant is untouched',
      );
    });

    it('never moves a cosigned size back, ignores a rekeyed witness, and schedules retries', async () => {
      const { witnessRepository: witnesses } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction((trx) =>
        witnesses.replace(trx, tenant, { quorum: 1, witnesses: [w('a')] }, 100),
      );
      const record = (treeSize: number, key = w('a')) =>
        c.storage.writeTransaction((trx) =>
          witnesses.recordCosignature(trx, tenant, key, {
            treeSize,
            rootHash: String(treeSize).padStart(64, '0'),
            signatureLine: `— a sig${treeSize}\n`,
            at: 300,
          }),
        );
      assert.equal(await record(9), true);
      assert.equal(await record(5), false, 'a smaller size is not recorded');
      assert.equal(await record(12, w('a', 'a+22222222+other')), false, 'another key is not recorded');
      assert.equal((await witnesses.get(c.storage.db, tenant))?.witnesses[0]?.cosigned_size, 9);

      await witnesses.recordFailure(c.storage.db, tenant, 'a', {
        attempts: 2,
        nextAttemptAt: 5_000,
        error: `HTTP 503 ${'x'.repeat(600)}`,
        now: 400,
      });
      const failed = (await witnesses.get(c.storage.db, tenant))?.witnesses[0];
      assert.equal(failed?.attempts, 2);
      assert.equal(failed?.last_error?.length, 500);
      assert.equal((await witnesses.dueTenants(c.storage.db, 4_999, 100)).includes(tenant), false);
      assert.equal((await witnesses.dueTenants(c.storage.db, 5_000, 100)).includes(tenant), true);
      assert.equal(await record(10), true);
      const recovered = (await witnesses.get(c.storage.db, tenant))?.witnesses[0];
      assert.deepEqual([recovered?.attempts, recovered?.last_error, recovered?.cosigned_size], [0, null, 10]);
    });
  });
}
