import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planConsistencyProof, planInclusionProof } from '@authority-runtime/sdk';
import { CompiledQuery } from 'kysely';
import type { AuditEvent } from '../../src/chain/audit-entry.js';
import { chainRepository } from '../../src/chain/chain-repository.js';
import {
  entryBlockQuery,
  STORED_FROM_LEVEL,
  subtreeHashQuery,
} from '../../src/chain/subtree-hash-repository.js';
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
 * tenant's tree. The subtrees below STORED_FROM_LEVEL are hashed from blocks of entries, read as
 * one key range each. The database has no statistics, as the service's never has (it runs no
 * ANALYZE).
 */
describe('the subtree-hash read (SQLite query plan)', () => {
  it('looks every stored address up by its whole key and every block of entries up by its range', async () => {
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
      const planOf = async (compiled: { sql: string; parameters: readonly unknown[] }) => {
        const plan = await t.storage.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        const details = plan.rows.map((row) => row.detail);
        return { text: details.join('\n'), searches: details.filter((d) => /SEARCH|SCAN/.test(d)) };
      };
      for (const addresses of [
        [{ level: 0, index: 123 }, ...planInclusionProof(123, 300).addresses],
        planConsistencyProof(17, 300).addresses,
        [{ level: 5, index: 5 }],
      ]) {
        const stored = addresses.filter((a) => a.level >= STORED_FROM_LEVEL);
        const plan = await planOf(subtreeHashQuery(t.storage.db, 'acme', stored).compile());
        assert.equal(plan.searches.length, stored.length, plan.text);
        for (const detail of plan.searches) {
          assert.match(detail, /^SEARCH audit_tree_hashes USING .*\(tenant_id=\? AND level=\? AND idx=\?\)$/);
        }
      }
      for (const blocks of [[7], [0, 3, 18]]) {
        const plan = await planOf(entryBlockQuery(t.storage.db, 'acme', blocks).compile());
        assert.equal(plan.searches.length, blocks.length, plan.text);
        for (const detail of plan.searches) {
          assert.match(detail, /^SEARCH audit_entries USING .*\(tenant_id=\? AND idx>\? AND idx<\?\)$/);
        }
      }
    } finally {
      await t.dispose();
    }
  });
});
