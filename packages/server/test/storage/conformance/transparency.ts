import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

/** The log keys and signed notes of the transparency log (contract §15). */
export function transparencyConformance(c: Conformance): void {
  describe('transparency log keys and notes', () => {
    it('stores one log key per tenant: the first insert wins', async () => {
      const { logKeyRepository: keys } = c.repos;
      const tenant = await newTenant(c, 'log');
      assert.equal(await keys.get(c.storage.db, tenant), undefined);
      const key = {
        tenantId: tenant,
        origin: `h/audit/${tenant}`,
        publicKey: 'AA==',
        sealedSeed: 'v1:a',
        createdAt: 5,
      };
      await keys.insertIfAbsent(c.storage.db, key);
      await keys.insertIfAbsent(c.storage.db, { ...key, origin: 'other', sealedSeed: 'v1:b' });
      assert.deepEqual(await keys.get(c.storage.db, tenant), key);
    });

    it('stores one note per tree size and finds the latest', async () => {
      const { logCheckpointRepository: notes } = c.repos;
      const tenant = await newTenant(c, 'log');
      assert.equal(await notes.latest(c.storage.db, tenant), undefined);
      const note = (treeSize: number, text = `n${treeSize}`) => ({
        tenantId: tenant,
        treeSize,
        rootHash: 'ab'.repeat(32),
        note: text,
        createdAt: treeSize,
      });
      for (const size of [3, 10, 7]) await notes.insertIfAbsent(c.storage.db, note(size));
      await notes.insertIfAbsent(c.storage.db, note(10, 'raced'));
      assert.deepEqual(await notes.latest(c.storage.db, tenant), note(10));
      assert.deepEqual(await notes.atSize(c.storage.db, tenant, 7), note(7));
      assert.equal(await notes.atSize(c.storage.db, tenant, 8), undefined);
    });
  });
}
