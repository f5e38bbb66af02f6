import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planConsistencyProof, planInclusionProof } from '@authority-runtime/sdk';
import { CompiledQuery } from 'kysely';
import type { AuditEvent } from '../../src/chain/audit-entry.js';
import { chainRepository } from '../../src/chain/chain-repository.js';
import { subtreeHashQuery } from '../../src/chain/subtree-hash-repository.js';
import { tenantRepository } from '../../src/tenancy/tenant-repository.js';
import { createTestStorage } from '../helpers/storage.js';

const event = (n: number): AuditEvent => ({
  correlationId: `c-${n}`,
  intentId: null,
  actorId: 'actor',
  actorType: 'principal:api-key',
  eventType: 'test.tree',
  payload: { n },
});

/**
 * A proof must cost O(log n) index lookups, never a pass over the tenant's tree (contract §15):
 * SQLite's plan for the subtree-hash read searches the whole primary key for every address. With
 * the tenant outside the OR, the plan was one search by tenant alone, which reads every row of the
 * tenant's tree. The database has no statistics, as the service's never has (it runs no ANALYZE).
 */
describe('the subtree-hash read (SQLite query plan)', () => {
  it('looks every address up by the whole key (tenant, level, index)', async () => {
    const t = await createTestStorage('sqlite');
    try {
      await tenantRepository.insert(
        t.storage.db,
        { id: 'acme', name: 'Acme', plan: 'pro', rateLimitPerMinute: null },
        1_000,
      );
      await t.storage.writeTransaction((trx) =>
        chainRepository.append(
          trx,
          'acme',
          Array.from({ length: 300 }, (_, i) => event(i)),
          1_000,
        ),
      );
      for (const addresses of [
        [{ level: 0, index: 123 }, ...planInclusionProof(123, 300).addresses],
        planConsistencyProof(17, 300).addresses,
        [{ level: 3, index: 5 }],
      ]) {
        const compiled = subtreeHashQuery(t.storage.db, 'acme', addresses).compile();
        const plan = await t.storage.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        const searches = plan.rows.map((row) => row.detail).filter((detail) => /SEARCH|SCAN/.test(detail));
        assert.equal(searches.length, addresses.length, plan.rows.map((row) => row.detail).join('\n'));
        for (const detail of searches) {
          assert.match(detail, /^SEARCH audit_tree_hashes USING .*\(tenant_id=\? AND level=\? AND idx=\?\)$/);
        }
      }
    } finally {
      await t.dispose();
    }
  });
});
