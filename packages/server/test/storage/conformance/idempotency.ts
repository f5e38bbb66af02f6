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
        keys.complete(trx, done, { statusCode: 200, body: '{"a":1}' }),
      );
      await keys.completeIfOpen(c.storage.db, done, { statusCode: 400, body: '{"b":2}' });
      assert.deepEqual(await keys.get(c.storage.db, done), {
        requestHash: 'h',
        statusCode: 200,
        response: '{"a":1}',
        expiresAtMs: 100,
      });
      await keys.release(c.storage.db, done);
      assert.notEqual(await keys.get(c.storage.db, done), undefined, 'an answered key stays');
      await keys.release(c.storage.db, open);
      assert.equal(await keys.get(c.storage.db, open), undefined);
      await keys.claim(c.storage.db, open, claim);
      await keys.completeIfOpen(c.storage.db, open, { statusCode: 422, body: '{}' });
      assert.equal((await keys.get(c.storage.db, open))?.statusCode, 422);
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
