import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { AppError } from '../../../src/errors/app-error.js';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import { generateApiKey, hashApiKey } from '../../../src/tenancy/api-key-secret.js';
import { createKeyService } from '../../../src/tenancy/key-service.js';
import { createTenantService } from '../../../src/tenancy/tenant-service.js';
import { createTestStorage } from '../../helpers/storage.js';
import type { Conformance } from './context.js';

/** Tenants and their API keys: the suite's first section, run on the shared database. */
export function tenantAndKeyConformance(c: Conformance): void {
  const { engine, clock } = c;
  const { tenantRepository, apiKeyRepository } = c.repos;
  const t = {
    get storage() {
      return c.storage;
    },
  };

  describe('tenants and API keys', () => {
    it('migrates an empty database and is idempotent', async () => {
      const fresh = await createTestStorage(engine, { migrate: false });
      try {
        assert.deepEqual(await fresh.storage.migrate(), [
          '0001_tenants_and_keys',
          '0002_trust_primitives',
          '0003_tenant_controls',
          '0004_decision_loop',
          '0005_portal_users_sessions',
          '0006_webhooks',
          '0007_approvals',
          '0008_connectors',
          '0009_physical',
          '0010_physical_policy',
          '0011_console_lookups',
          '0012_budgets',
          '0013_policy_review',
          '0014_audit_tree',
          '0015_log_keys',
          '0016_audit_witnesses',
          '0017_portal_mfa_lockout',
        ]);
        assert.deepEqual(await fresh.storage.migrate(), []);
        await fresh.storage.ping();
      } finally {
        await fresh.dispose();
      }
    });

    it('stores and reads a tenant with millisecond times as numbers', async () => {
      const created = await tenantRepository.insert(
        t.storage.db,
        { id: 'acme', name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 12_345 },
        Date.parse('2026-03-04T05:06:07.089Z'),
      );
      const read = await tenantRepository.get(t.storage.db, 'acme');
      assert.deepEqual(read, created);
      assert.equal(read?.createdAt, '2026-03-04T05:06:07.089Z');
      assert.equal(read?.rateLimitPerMinute, 12_345);
      assert.equal(read?.killSwitch.enabled, false);
      assert.deepEqual(read?.ipAllowlist, []);
      assert.equal(await tenantRepository.get(t.storage.db, 'nobody'), undefined);
    });

    it('rejects a second tenant with the same id through the primary key', async () => {
      await assert.rejects(
        tenantRepository.insert(
          t.storage.db,
          { id: 'acme', name: 'Again', plan: 'pro', rateLimitPerMinute: null },
          1,
        ),
        (error) => isUniqueViolation(error),
      );
    });

    it('updates the plan of an existing tenant only', async () => {
      const updated = await tenantRepository.updatePlan(
        t.storage.db,
        'acme',
        { plan: 'pro', rateLimitPerMinute: null },
        2,
      );
      assert.equal(updated?.plan, 'pro');
      assert.equal(updated?.rateLimitPerMinute, null);
      assert.equal(
        await tenantRepository.updatePlan(
          t.storage.db,
          'ghost',
          { plan: 'pro', rateLimitPerMinute: null },
          2,
        ),
        undefined,
      );
    });

    it('creates a tenant with its owner key in one transaction, and refuses a duplicate with 409', async () => {
      const service = createTenantService(t.storage, clock);
      const { tenant, ownerKey } = await service.create({ id: 'beta', plan: 'free' });
      assert.equal(tenant.name, 'beta');
      const stored = await apiKeyRepository.findByHash(t.storage.db, hashApiKey(ownerKey.key));
      assert.equal(stored?.tenantId, 'beta');
      assert.equal(stored?.role, 'owner');
      await assert.rejects(
        service.create({ id: 'beta', plan: 'free' }),
        (e) => e instanceof AppError && e.code === 'CONFLICT',
      );
      const keys = await apiKeyRepository.list(t.storage.db, 'beta');
      assert.equal(keys.length, 1, 'the failed duplicate left no key behind');
    });

    it('stores only the hash and display prefix of a key, and finds it by hash', async () => {
      const secret = generateApiKey();
      await apiKeyRepository.insert(t.storage.db, {
        tenantId: 'acme',
        id: 'key-1',
        name: 'ci',
        keyHash: secret.hash,
        displayPrefix: secret.displayPrefix,
        role: 'auditor',
        scopes: ['audit:read'],
        expiresAt: 9_999_999_999_999,
        createdAt: 10,
        createdBy: null,
        revokedAt: null,
        lastUsedAt: null,
      });
      const rows = await t.storage.db.selectFrom('api_keys').selectAll().where('id', '=', 'key-1').execute();
      assert.equal(rows.length, 1);
      assert.ok(!JSON.stringify(rows).includes(secret.key), 'the secret is not stored');
      const found = await apiKeyRepository.findByHash(t.storage.db, secret.hash);
      assert.deepEqual(found?.scopes, ['audit:read']);
      assert.equal(found?.expiresAt, 9_999_999_999_999);
    });

    it('enforces (tenant_id, key_hash) uniqueness', async () => {
      const row = await t.storage.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', 'key-1')
        .executeTakeFirstOrThrow();
      await assert.rejects(
        t.storage.db
          .insertInto('api_keys')
          .values({ ...row, id: 'key-2' })
          .execute(),
        (error) => isUniqueViolation(error),
      );
    });

    it('revokes keys per tenant only, idempotently, and records last use', async () => {
      assert.equal(
        await apiKeyRepository.revoke(t.storage.db, 'beta', 'key-1', 50),
        'missing',
        'another tenant cannot revoke it',
      );
      assert.equal((await apiKeyRepository.get(t.storage.db, 'acme', 'key-1'))?.revokedAt, null);
      assert.equal(await apiKeyRepository.revoke(t.storage.db, 'acme', 'key-1', 50), 'revoked');
      assert.equal(await apiKeyRepository.revoke(t.storage.db, 'acme', 'key-1', 60), 'unchanged');
      assert.equal((await apiKeyRepository.get(t.storage.db, 'acme', 'key-1'))?.revokedAt, 50);
      await apiKeyRepository.touchLastUsed(t.storage.db, 'acme', 'key-1', 70);
      assert.equal((await apiKeyRepository.get(t.storage.db, 'acme', 'key-1'))?.lastUsedAt, 70);
    });

    it('the key service revokes with NOT_FOUND for unknown and foreign ids', async () => {
      const service = createKeyService(t.storage, clock, () => {});
      await assert.rejects(
        service.revoke('beta', 'key-1', null),
        (e) => e instanceof AppError && e.code === 'NOT_FOUND',
      );
    });

    it('creates the demo tenant once, even when several starts race', async () => {
      const fresh = await createTestStorage(engine);
      try {
        const service = createTenantService(fresh.storage, clock);
        const results = await Promise.all([
          service.bootstrapDemo(),
          service.bootstrapDemo(),
          service.bootstrapDemo(),
        ]);
        assert.equal(results.filter((r) => r !== undefined).length, 1);
        assert.equal(await service.bootstrapDemo(), undefined);
        const count = await sql<{ n: number }>`select count(*) as n from tenants`.execute(fresh.storage.db);
        assert.equal(Number(count.rows[0]?.n), 1);
      } finally {
        await fresh.dispose();
      }
    });

    it('does not create the demo tenant when tenants already exist', async () => {
      assert.equal(await createTenantService(t.storage, clock).bootstrapDemo(), undefined);
      assert.equal(await tenantRepository.get(t.storage.db, 'demo'), undefined);
    });
  });
}
