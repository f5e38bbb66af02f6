import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

/** Idempotency keys: claims, answers, expiry and release. */
export function idempotencyConformance(c: Conformance): void {
  describe('idempotency keys', () => {
    it('lets the first claim of a key win, per tenant and scope', async () => {
      const { idempotencyRepository: keys } = c.repos;
      const tenantId = await newTenant(c);
      const key = { tenantId, scope: 'intent', key: 'k-1' };
      const claim = { requestHash: 'h1', createdAtMs: 1, expiresAtMs: 100 };
      await keys.claim(c.storage.db, key, claim);
      await assert.rejects(keys.claim(c.storage.db, key, { ...claim, requestHash: 'h2' }), (e) =>
        isUniqueViolation(e),
      );
      await keys.claim(c.storage.db, { ...key, scope: 'physical' }, claim);
      assert.deepEqual(await keys.get(c.storage.db, key), {
        requestHash: 'h1',
        statusCode: null,
        response: null,
        createdAtMs: 1,
        expiresAtMs: 100,
      });
      assert.equal(await keys.get(c.storage.db, { ...key, key: 'k-2' }), undefined);
    });

    it('stores the answer, keeps the first one stored, and releases only open claims', async () => {
      const { idempotencyRepository: keys } = c.repos;
      const tenantId = await newTenant(c);
      const done = { tenantId, scope: 'intent', key: 'done' };
      const open = { tenantId, scope: 'intent', key: 'open' };
      const claim = { requestHash: 'h', createdAtMs: 1, expiresAtMs: 100 };
      await keys.claim(c.storage.db, done, claim);
      await keys.claim(c.storage.db, open, claim);
      await c.storage.writeTransaction((trx) =>
        keys.complete(trx, done, 1, { statusCode: 200, body: '{"a":1}' }),
      );
      await keys.completeIfOpen(c.storage.db, done, 1, { statusCode: 400, body: '{"b":2}' });
      assert.deepEqual(await keys.get(c.storage.db, done), {
        requestHash: 'h',
        statusCode: 200,
        response: '{"a":1}',
        createdAtMs: 1,
        expiresAtMs: 100,
      });
      await keys.release(c.storage.db, done, 1);
      assert.notEqual(await keys.get(c.storage.db, done), undefined, 'an answered key stays');
      await keys.release(c.storage.db, open, 1);
      assert.equal(await keys.get(c.storage.db, open), undefined);
      await keys.claim(c.storage.db, open, claim);
      await keys.completeIfOpen(c.storage.db, open, 1, { statusCode: 422, body: '{}' });
      assert.equal((await keys.get(c.storage.db, open))?.statusCode, 422);
    });

    it('hands an open claim over once, and then only the new claim completes or releases it', async () => {
      const { idempotencyRepository: keys } = c.repos;
      const tenantId = await newTenant(c);
      const key = { tenantId, scope: 'intent', key: 'crashed' };
      await keys.claim(c.storage.db, key, { requestHash: 'h', createdAtMs: 1_000, expiresAtMs: 900_000 });
      assert.equal(await keys.takeOver(c.storage.db, key, 999, 200_000), false, 'not the claim it names');
      assert.equal(await keys.takeOver(c.storage.db, key, 1_000, 200_000), true);
      assert.equal(await keys.takeOver(c.storage.db, key, 1_000, 300_000), false, 'taken over already');
      assert.equal((await keys.get(c.storage.db, key))?.createdAtMs, 200_000);
      // The first request, still alive after all, can neither answer nor free the key.
      const late = await c.storage.writeTransaction((trx) =>
        keys.complete(trx, key, 1_000, { statusCode: 200, body: '{"late":true}' }),
      );
      assert.equal(late, false);
      await keys.completeIfOpen(c.storage.db, key, 1_000, { statusCode: 400, body: '{}' });
      await keys.release(c.storage.db, key, 1_000);
      assert.equal((await keys.get(c.storage.db, key))?.statusCode, null);
      const won = await c.storage.writeTransaction((trx) =>
        keys.complete(trx, key, 200_000, { statusCode: 200, body: '{"retry":true}' }),
      );
      assert.equal(won, true);
      assert.equal((await keys.get(c.storage.db, key))?.response, '{"retry":true}');
      assert.equal(await keys.takeOver(c.storage.db, key, 200_000, 400_000), false, 'an answered key stays');
    });

    it('deletes a record only once it has expired', async () => {
      const { idempotencyRepository: keys } = c.repos;
      const tenantId = await newTenant(c);
      const key = { tenantId, scope: 'intent', key: 'k' };
      await keys.claim(c.storage.db, key, { requestHash: 'h', createdAtMs: 1, expiresAtMs: 100 });
      await keys.deleteExpired(c.storage.db, key, 99);
      assert.notEqual(await keys.get(c.storage.db, key), undefined);
      await keys.deleteExpired(c.storage.db, key, 100);
      assert.equal(await keys.get(c.storage.db, key), undefined);
    });
  });
}
