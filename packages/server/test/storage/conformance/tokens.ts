import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { SigningKeysTable } from '../../../src/storage/schema.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function keyRow(tenantId: string, kid: string, status: string, createdAt: number): SigningKeysTable {
  return {
    tenant_id: tenantId,
    kid,
    alg: 'EdDSA',
    status,
    public_jwk: '{"kty":"OKP","crv":"Ed25519","x":"AAAA"}',
    private_key: 'sealed',
    source: 'local',
    sign_url: null,
    sign_headers: null,
    created_at: createdAt,
    rotated_at: null,
    retired_at: null,
  };
}

/** Tenant signing keys, tenant secrets and consumed token nonces. */
export function tokenConformance(c: Conformance): void {
  describe('signing keys, tenant secrets and token nonces', () => {
    it('keeps one ACTIVE key per tenant and moves keys ACTIVE → PREVIOUS → RETIRED', async () => {
      const { signingKeyRepository: keys } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      await keys.insert(c.storage.db, keyRow(tenant, 'k1', 'ACTIVE', 10));
      await keys.insert(c.storage.db, keyRow(other, 'k1', 'ACTIVE', 10));
      await assert.rejects(keys.insert(c.storage.db, keyRow(tenant, 'k2', 'ACTIVE', 20)), (e) =>
        isUniqueViolation(e),
      );
      await c.storage.writeTransaction(async (trx) => {
        await keys.demote(trx, tenant, 'k1', 30);
        await keys.insert(trx, keyRow(tenant, 'k2', 'ACTIVE', 30));
      });
      await c.storage.writeTransaction(async (trx) => {
        await keys.retire(trx, tenant, 'k1', 40);
        await keys.demote(trx, tenant, 'k2', 40);
        await keys.insert(trx, keyRow(tenant, 'k3', 'ACTIVE', 40));
      });
      const statuses = (await keys.list(c.storage.db, tenant)).map((k) => [k.kid, k.status]);
      assert.deepEqual(statuses, [
        ['k3', 'ACTIVE'],
        ['k2', 'PREVIOUS'],
        ['k1', 'RETIRED'],
      ]);
      assert.deepEqual(
        (await keys.list(c.storage.db, tenant, ['ACTIVE', 'PREVIOUS'])).map((k) => k.kid),
        ['k3', 'k2'],
      );
      const retired = await keys.get(c.storage.db, tenant, 'k1');
      assert.deepEqual([retired?.rotated_at, retired?.retired_at], [30, 40]);
      assert.equal((await keys.get(c.storage.db, other, 'k1'))?.status, 'ACTIVE');
      assert.equal(await keys.get(c.storage.db, tenant, 'k9'), undefined);
    });

    it('finds the oldest key held here, of any tenant, passing over external signers', async () => {
      const { signingKeyRepository: keys } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      // Older than any other test's keys (their times are positive).
      await keys.insert(c.storage.db, {
        ...keyRow(other, 'ext', 'ACTIVE', -20),
        private_key: null,
        source: 'external',
      });
      await keys.insert(c.storage.db, keyRow(tenant, 'old', 'ACTIVE', -10));
      const oldest = await keys.oldestLocal(c.storage.db);
      assert.deepEqual([oldest?.tenant_id, oldest?.kid, oldest?.created_at], [tenant, 'old', -10]);
    });

    it('keeps one active secret per tenant and kind, and finds retired ones by id', async () => {
      const { tenantSecretRepository: secrets } = c.repos;
      const tenant = await newTenant(c);
      const secret = (id: string, kind: string) => ({
        tenantId: tenant,
        id,
        kind,
        sealed: `sealed-${id}`,
        createdAtMs: 1,
      });
      assert.equal(await secrets.active(c.storage.db, tenant, 'evidence'), undefined);
      await secrets.insertActive(c.storage.db, secret('s1', 'evidence'));
      await secrets.insertActive(c.storage.db, secret('p1', 'permission'));
      await assert.rejects(secrets.insertActive(c.storage.db, secret('s2', 'evidence')), (e) =>
        isUniqueViolation(e),
      );
      await c.storage.writeTransaction(async (trx) => {
        await secrets.retireActive(trx, tenant, 'evidence');
        await secrets.insertActive(trx, secret('s2', 'evidence'));
      });
      assert.deepEqual(await secrets.active(c.storage.db, tenant, 'evidence'), {
        id: 's2',
        sealed: 'sealed-s2',
      });
      assert.deepEqual(await secrets.active(c.storage.db, tenant, 'permission'), {
        id: 'p1',
        sealed: 'sealed-p1',
      });
      assert.deepEqual(await secrets.get(c.storage.db, tenant, 's1'), { id: 's1', sealed: 'sealed-s1' });
      assert.equal(await secrets.get(c.storage.db, await newTenant(c), 's1'), undefined);
    });

    it('accepts a nonce once per tenant', async () => {
      const { tokenNonceRepository: nonces } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const use = (tenantId: string) =>
        c.storage.writeTransaction((trx) =>
          nonces.consume(trx, {
            tenantId,
            nonce: 'n-1',
            intentId: null,
            adapterId: 'external',
            consumedAtMs: 1,
            expiresAtMs: 2,
          }),
        );
      assert.equal(await nonces.isConsumed(c.storage.db, tenant, 'n-1'), false);
      await use(tenant);
      assert.equal(await nonces.isConsumed(c.storage.db, tenant, 'n-1'), true);
      assert.equal(await nonces.isConsumed(c.storage.db, other, 'n-1'), false, "another tenant's nonce");
      await assert.rejects(use(tenant), (e) => isUniqueViolation(e));
      await use(other);
    });
  });
}
