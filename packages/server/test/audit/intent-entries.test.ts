import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { GENESIS_HASH, sealEntry } from '../../src/chain/audit-entry.js';
import { intentEntriesQuery } from '../../src/chain/chain-repository.js';
import { tenantRepository } from '../../src/tenancy/tenant-repository.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';

const ENTRIES = 20_000;
const intentOf = (i: number) => `01a2014e-fa12-72fe-ad37-${String(Math.floor(i / 4)).padStart(12, '0')}`;

for (const engine of ENGINES) {
  describe(`an intent's entries are read through the per-intent index (${engine})`, () => {
    let t: TestStorage;

    before(async () => {
      t = await createTestStorage(engine);
      const db = t.storage.db;
      await tenantRepository.insert(
        db,
        { id: 'acme', name: 'acme', plan: 'pro', rateLimitPerMinute: null },
        0,
      );
      let previous = GENESIS_HASH;
      for (let from = 0; from < ENTRIES; from += 500) {
        const rows = [];
        for (let i = from; i < from + 500; i += 1) {
          const sealed = sealEntry(
            'acme',
            i,
            previous,
            {
              correlationId: intentOf(i),
              intentId: intentOf(i),
              actorId: 'agent-7',
              actorType: 'agent',
              eventType: 'intent.decided',
              payload: { n: i },
            },
            i,
          );
          previous = sealed.entry.entryHash;
          rows.push({
            tenant_id: 'acme',
            idx: i,
            correlation_id: sealed.entry.correlationId,
            intent_id: sealed.entry.intentId,
            actor_id: 'agent-7',
            actor_type: 'agent',
            event_type: 'intent.decided',
            target_system: null,
            previous_hash: sealed.entry.previousHash,
            entry_hash: sealed.entry.entryHash,
            canonical: sealed.canonical,
            created_at: i,
          });
        }
        await db.insertInto('audit_entries').values(rows).execute();
      }
      if (engine === 'postgres') await sql`analyze audit_entries`.execute(db);
    });
    after(async () => {
      await t.dispose();
    });

    test('the query plan uses audit_entries_intent_idx, never a scan of the tenant', async () => {
      const compiled = intentEntriesQuery(t.storage.db, 'acme', intentOf(12_345))
        .select(['idx', 'entry_hash'])
        .compile();
      const explain = engine === 'sqlite' ? 'explain query plan ' : 'explain ';
      const plan = await t.storage.db.executeQuery(
        CompiledQuery.raw(`${explain}${compiled.sql}`, [...compiled.parameters]),
      );
      const text = JSON.stringify(plan.rows);
      assert.match(text, /audit_entries_intent_idx/, text);
      assert.doesNotMatch(text, /Seq Scan|SCAN audit_entries\b/, text);
    });

    test('and answers the intent’s entries in chain order', async () => {
      const rows = await intentEntriesQuery(t.storage.db, 'acme', intentOf(12_345)).select('idx').execute();
      assert.deepEqual(
        rows.map((r) => r.idx).sort((a, b) => a - b),
        [12_344, 12_345, 12_346, 12_347],
      );
    });
  });
}
