import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { PhysicalSigningKeysTable } from '../../../src/storage/physical-schema.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function key(kid: string, status: string, createdAt: number): PhysicalSigningKeysTable {
  return {
    kid,
    alg: 'RS256',
    bits: 2048,
    status,
    public_jwk: '{"kty":"RSA","n":"AQAB","e":"AQAB"}',
    private_key: 'sealed',
    created_at: createdAt,
    rotated_at: null,
    retired_at: null,
  };
}

/** Physical clause policies (versioned per tenant) and the shared physical signing keys. */
export function physicalPolicyAndKeyConformance(c: Conformance): void {
  describe('physical policies and signing keys', () => {
    it('versions policies per tenant with at most one active', async () => {
      const { physicalPolicyRepository: policies } = c.repos;
      const tenant = await newTenant(c);
      const upload = (version: number, active: boolean) => ({
        tenantId: tenant,
        version,
        id: `p-${version}`,
        document: { clauses: [], description: `v${version}` },
        active,
        createdAtMs: version * 10,
        createdBy: 'key-1',
      });
      assert.equal(await policies.latestVersion(c.storage.db, tenant), 0);
      assert.equal(await policies.active(c.storage.db, tenant), undefined);
      await c.storage.writeTransaction(async (trx) => {
        await policies.insert(trx, upload(1, true));
        await policies.insert(trx, upload(2, false));
      });
      await assert.rejects(
        c.storage.writeTransaction((trx) => policies.insert(trx, upload(3, true))),
        (e) => isUniqueViolation(e),
        'a second active version',
      );
      assert.deepEqual(await policies.active(c.storage.db, tenant), { version: 1, activatedAtMs: 10 });
      await c.storage.writeTransaction(async (trx) => {
        await policies.deactivate(trx, tenant, 1);
        await policies.insert(trx, upload(3, true));
      });
      assert.deepEqual(await policies.active(c.storage.db, tenant), { version: 3, activatedAtMs: 30 });
      assert.equal(await policies.latestVersion(c.storage.db, tenant), 3);
      assert.deepEqual(await policies.document(c.storage.db, tenant, 2), { clauses: [], description: 'v2' });
      assert.equal(await policies.document(c.storage.db, tenant, 4), undefined);
      assert.equal(await policies.active(c.storage.db, await newTenant(c)), undefined);
    });

    it('keeps one ACTIVE physical key and rotates under a lock', async () => {
      const { physicalKeyRepository: keys } = c.repos;
      await keys.insertIfAbsent(c.storage.db, key('pk-1', 'ACTIVE', 10));
      await keys.insertIfAbsent(c.storage.db, key('pk-2', 'ACTIVE', 20));
      assert.deepEqual(
        (await keys.list(c.storage.db)).map((k) => k.kid),
        ['pk-1'],
        'a second first key is a no-op',
      );
      await assert.rejects(keys.insert(c.storage.db, key('pk-3', 'ACTIVE', 30)), (e) => isUniqueViolation(e));
      await c.storage.writeTransaction(async (trx) => {
        const current = await keys.list(trx, ['ACTIVE', 'PREVIOUS'], { forUpdate: true });
        assert.deepEqual(
          current.map((k) => k.kid),
          ['pk-1'],
        );
        await keys.demote(trx, 'pk-1', 40);
        await keys.insert(trx, key('pk-4', 'ACTIVE', 40));
      });
      await c.storage.writeTransaction(async (trx) => {
        await keys.retire(trx, 'pk-1', 50);
        await keys.demote(trx, 'pk-4', 50);
        await keys.insert(trx, key('pk-5', 'ACTIVE', 50));
      });
      assert.deepEqual(
        (await keys.list(c.storage.db)).map((k) => [k.kid, k.status, k.rotated_at, k.retired_at]),
        [
          ['pk-5', 'ACTIVE', null, null],
          ['pk-4', 'PREVIOUS', 50, null],
          ['pk-1', 'RETIRED', 40, 50],
        ],
      );
      assert.deepEqual(
        (await keys.list(c.storage.db, ['RETIRED'])).map((k) => k.kid),
        ['pk-1'],
      );
    });
  });
}
