import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PublicKeyLookup } from '../../src/audit/checkpoint.js';
import { verifyStoredChain } from '../../src/audit/stored-chain-verification.js';
import { chainRepository } from '../../src/chain/chain-repository.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { testEvent } from '../helpers/audit.js';
import { ENGINES } from '../helpers/storage.js';

const LENGTH = 4_500;
const BATCH = 1_500;

for (const engine of ENGINES) {
  describe(`chain verification while the chain grows (${engine})`, () => {
    let t: TestApp;
    let headers: Record<string, string>;

    before(async () => {
      t = await createTestApp(engine);
      headers = await t.ownerHeaders('acme');
      for (let start = 0; start < LENGTH; start += BATCH) {
        const events = Array.from({ length: BATCH }, (_, i) => testEvent(start + i));
        await t.storage.writeTransaction((trx) => chainRepository.append(trx, 'acme', events, t.clock()));
      }
      await t.services.checkpointer.checkpointNow('acme');
    });
    after(async () => {
      await t.close();
    });

    const verify = async () => {
      const response = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };

    it('does not read a checkpoint signed after it began as a tail cut off', async () => {
      // The chain grows and is checkpointed while its checkpoint at LENGTH - 1 is being checked:
      // after the verification read the head, before it looks for checkpoints past it.
      let grown: { index: number } | undefined;
      const lookup: PublicKeyLookup = async (kid) => {
        if (grown === undefined) {
          const events = Array.from({ length: 5 }, (_, i) => testEvent(LENGTH + i));
          await t.storage.writeTransaction((trx) => chainRepository.append(trx, 'acme', events, t.clock()));
          grown = await t.services.checkpointer.checkpointNow('acme');
        }
        return t.services.signingKeys.publicKey('acme', kid);
      };
      const result = await verifyStoredChain(t.storage, t.clock, 'acme', lookup);
      assert.equal(grown?.index, LENGTH + 4);
      assert.deepEqual(
        [result.valid, result.length, result.checkpointsVerified, result.brokenAt, result.reason],
        [true, LENGTH, 1, undefined, undefined],
        'the chain as it stood when the verification began, found sound',
      );
      const now = await verify();
      assert.deepEqual([now.valid, now.length, now.checkpointsVerified], [true, LENGTH + 5, 2]);
    });

    it('still finds the tail cut off behind the newest checkpoint', async () => {
      const head = await chainRepository.head(t.storage.db, 'acme');
      assert.equal(head?.lastCheckpointIndex, LENGTH + 4);
      await t.storage.db
        .deleteFrom('audit_entries')
        .where('tenant_id', '=', 'acme')
        .where('idx', '>=', LENGTH + 2)
        .execute();
      await t.storage.db
        .updateTable('audit_heads')
        .set({ last_index: LENGTH + 1 })
        .where('tenant_id', '=', 'acme')
        .execute();
      const result = await verify();
      assert.deepEqual(
        [result.valid, result.length, result.brokenAt, result.reason],
        [false, LENGTH + 2, LENGTH + 4, 'CHECKPOINT_MISMATCH'],
      );
    });
  });
}
