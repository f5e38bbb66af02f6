import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClaimLostError, OPEN_CLAIM_LEASE_MS } from '../../src/idempotency/idempotency.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`an Idempotency-Key left open by a request that never finished (${engine})`, () => {
    let t: TestApp;
    let agent: Headers;

    before(async () => {
      t = await createTestApp(engine, { IDEMPOTENCY_WAIT_MS: '100' });
      await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    const submit = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: { ...agent, 'idempotency-key': key },
        payload: intentPayload('list open pull requests'),
      });

    /** What a `kill -9` between the claim and the commit leaves: the claim, no answer. */
    const crashBeforeCommit = (key: string) =>
      t.storage.db
        .updateTable('idempotency_keys')
        .set({ status_code: null, response: null })
        .where('tenant_id', '=', 'acme')
        .where('key', '=', key)
        .execute();

    it('answers 409 while the claim may still be running, then lets the retry decide once', async () => {
      const first = await submit('crash-1');
      assert.equal(first.statusCode, 200, first.body);
      await crashBeforeCommit('crash-1');

      const early = await submit('crash-1');
      assert.equal(early.statusCode, 409, early.body);
      assert.match(early.json().error.message, /still being processed/);

      t.clock.advance(OPEN_CLAIM_LEASE_MS);
      const retried = await submit('crash-1');
      assert.equal(retried.statusCode, 200, retried.body);
      assert.notEqual(retried.json().intentId, first.json().intentId, 'decided anew');
      const replayed = await submit('crash-1');
      assert.deepEqual(replayed.json(), retried.json(), 'and replayed from then on');
    });

    it('never commits the outcome of the request whose claim was taken over', async () => {
      const { idempotency } = t.services;
      const zombie = await idempotency.claim('acme', 'test', 'slow-1', 'h');
      assert.equal(zombie.kind, 'new');
      t.clock.advance(OPEN_CLAIM_LEASE_MS);
      const retry = await idempotency.claim('acme', 'test', 'slow-1', 'h');
      assert.equal(retry.kind, 'new');
      if (zombie.kind !== 'new' || retry.kind !== 'new') return;

      await assert.rejects(
        t.storage.writeTransaction((trx) =>
          idempotency.complete(trx, 'acme', 'test', zombie.claimed, {
            statusCode: 200,
            body: { late: true },
          }),
        ),
        ClaimLostError,
      );
      await idempotency.release('acme', 'test', zombie.claimed);
      await t.storage.writeTransaction((trx) =>
        idempotency.complete(trx, 'acme', 'test', retry.claimed, { statusCode: 200, body: { retry: true } }),
      );
      assert.deepEqual(await idempotency.claim('acme', 'test', 'slow-1', 'h'), {
        kind: 'replay',
        statusCode: 200,
        body: { retry: true },
      });
      // Another body under the key is still refused, lease or not.
      await assert.rejects(idempotency.claim('acme', 'test', 'slow-1', 'other'), /different request body/);
    });

    it('replays an answer whose execution was cut short, once the lease has passed', async () => {
      const { idempotency } = t.services;
      const pending = (body: unknown) =>
        (body as { execution?: { status?: string } }).execution?.status === 'pending';
      const claim = await idempotency.claim('acme', 'test', 'exec-1', 'h');
      assert.equal(claim.kind, 'new');
      if (claim.kind !== 'new') return;
      const stored = { statusCode: 200, body: { execution: { status: 'pending' } } };
      await t.storage.writeTransaction((trx) =>
        idempotency.complete(trx, 'acme', 'test', claim.claimed, stored),
      );
      await assert.rejects(
        idempotency.claim('acme', 'test', 'exec-1', 'h', pending),
        /still being processed/,
      );
      t.clock.advance(OPEN_CLAIM_LEASE_MS);
      assert.deepEqual(await idempotency.claim('acme', 'test', 'exec-1', 'h', pending), {
        kind: 'replay',
        ...stored,
      });
    });
  });
}
