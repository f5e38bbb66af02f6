import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

/** Console users and their sessions. */
export function portalConformance(c: Conformance): void {
  describe('portal users and sessions', () => {
    it('stores users unique by email per tenant, and accepts each TOTP step once', async () => {
      const { portalUserRepository: users } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const user = (id: string, email: string, tenantId = tenant) => ({
        tenantId,
        id,
        email,
        passwordHash: `scrypt$${id}`,
        role: 'approver' as const,
        createdAtMs: 5,
      });
      await c.storage.writeTransaction(async (trx) => {
        await users.insert(trx, user('u2', 'zoe@example.com'));
        await users.insert(trx, user('u1', 'ann@example.com'));
        await users.insert(trx, user('u1', 'ann@example.com', other));
      });
      await assert.rejects(
        c.storage.writeTransaction((trx) => users.insert(trx, user('u3', 'ann@example.com'))),
        (e) => isUniqueViolation(e),
      );
      assert.deepEqual(
        (await users.list(c.storage.db, tenant)).map((u) => u.email),
        ['ann@example.com', 'zoe@example.com'],
      );
      assert.deepEqual(await users.findByEmail(c.storage.db, tenant, 'ann@example.com'), {
        tenantId: tenant,
        id: 'u1',
        email: 'ann@example.com',
        passwordHash: 'scrypt$u1',
        role: 'approver',
        totpSecret: null,
        totpPendingSecret: null,
        lastTotpStep: null,
        mfaFailures: 0,
        mfaLockedUntilMs: null,
        createdAtMs: 5,
      });
      assert.equal(await users.findByEmail(c.storage.db, tenant, 'nobody@example.com'), undefined);

      await users.setPendingTotpSecret(c.storage.db, tenant, 'u1', 'pending-sealed', 6);
      assert.equal((await users.get(c.storage.db, tenant, 'u1'))?.totpPendingSecret, 'pending-sealed');
      const accept = (step: number, enroll?: string) =>
        c.storage.writeTransaction((trx) =>
          users.acceptTotpStep(trx, tenant, 'u1', { step, now: 7, enroll }),
        );
      const failed = (failures: number, lockedUntil: number | null) =>
        c.storage.writeTransaction((trx) =>
          users.setMfaFailures(trx, tenant, 'u1', { failures, lockedUntil, now: 6 }),
        );
      const counters = async (tenantId: string) => {
        const user = await users.get(c.storage.db, tenantId, 'u1');
        return [user?.mfaFailures, user?.mfaLockedUntilMs];
      };
      assert.deepEqual(await counters(tenant), [0, null], 'a new user has no wrong code');
      await failed(3, null);
      assert.deepEqual(await counters(tenant), [3, null]);
      await failed(0, 1_800_000_000_000);
      assert.deepEqual(await counters(tenant), [0, 1_800_000_000_000], 'a lock up to the millisecond');
      await failed(2, 1_800_000_000_000);
      assert.deepEqual(await counters(other), [0, null], "another tenant's user is untouched");
      assert.equal(await accept(100, 'pending-sealed'), true);
      assert.deepEqual(await counters(tenant), [0, null], 'an accepted code clears the count and the lock');
      assert.equal(await accept(100), false, 'the same step again');
      assert.equal(await accept(99), false, 'an earlier step');
      assert.equal(await accept(101), true);
      const enrolled = await users.get(c.storage.db, tenant, 'u1');
      assert.deepEqual(
        [enrolled?.totpSecret, enrolled?.totpPendingSecret, enrolled?.lastTotpStep],
        ['pending-sealed', null, 101],
      );
      assert.equal((await users.get(c.storage.db, other, 'u1'))?.lastTotpStep, null);
    });

    it('finds a session with its user, touches, rotates, counts failures and deletes it', async () => {
      const { portalUserRepository: users, portalSessionRepository: sessions } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction(async (trx) => {
        await users.insert(trx, {
          tenantId: tenant,
          id: 'u1',
          email: 'ann@example.com',
          passwordHash: 'x',
          role: 'owner',
          createdAtMs: 1,
        });
        await sessions.insert(trx, {
          tenantId: tenant,
          sessionHash: `${tenant}-h1`,
          userId: 'u1',
          createdAtMs: 10,
        });
      });
      assert.deepEqual(await sessions.findWithUser(c.storage.db, `${tenant}-h1`), {
        tenantId: tenant,
        userId: 'u1',
        createdAtMs: 10,
        lastSeenAtMs: 10,
        mfaVerified: false,
        role: 'owner',
        totpEnrolled: false,
      });
      assert.equal(await sessions.findWithUser(c.storage.db, 'unknown'), undefined);
      await sessions.touch(c.storage.db, tenant, `${tenant}-h1`, 50);
      await sessions.touch(c.storage.db, tenant, `${tenant}-h1`, 40);
      assert.equal(
        (await sessions.findWithUser(c.storage.db, `${tenant}-h1`))?.lastSeenAtMs,
        50,
        'never back',
      );

      await c.storage.writeTransaction((trx) => sessions.setMfaFailures(trx, tenant, `${tenant}-h1`, 3));
      assert.equal(await sessions.mfaFailures(c.storage.db, tenant, `${tenant}-h1`), 3);
      await c.storage.writeTransaction((trx) =>
        sessions.markMfaVerified(trx, tenant, `${tenant}-h1`, `${tenant}-h2`),
      );
      assert.equal(await sessions.findWithUser(c.storage.db, `${tenant}-h1`), undefined, 'the old id ended');
      assert.equal((await sessions.findWithUser(c.storage.db, `${tenant}-h2`))?.mfaVerified, true);
      assert.equal(await sessions.mfaFailures(c.storage.db, tenant, `${tenant}-h2`), 0);
      await sessions.delete(c.storage.db, tenant, `${tenant}-h2`);
      assert.equal(await sessions.findWithUser(c.storage.db, `${tenant}-h2`), undefined);
      assert.equal(await sessions.mfaFailures(c.storage.db, tenant, `${tenant}-h2`), undefined);
    });
  });
}
