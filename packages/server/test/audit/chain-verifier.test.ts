/**
 * ChainVerifier reads an entry's index, tenant and previous hash where JCS places them instead of
 * parsing the whole text. These tests seal entries with adversarial payloads (member names and
 * values that imitate the top-level members) and check that the verifier decides exactly as a full
 * JSON.parse of the entry would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type AuditEvent, GENESIS_HASH, sealEntry } from '../../src/chain/audit-entry.js';
import { ChainVerifier } from '../../src/chain/chain-verifier.js';

const TRAPS = [
  ',"index":0,"intentId":null',
  '","previousHash":"',
  ',"tenantId":"acme"}',
  '"tenantId":"other"}',
  '\\',
  '"',
  'acme',
];

const tricky = fc.oneof(fc.constantFrom(...TRAPS), fc.string({ maxLength: 12 }));
const payloadArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom('index', 'previousHash', 'tenantId', 'intentId'), tricky), tricky, {
    maxKeys: 4,
  }),
  tricky,
  fc.constant(null),
  fc.array(tricky, { maxLength: 3 }),
);
const eventArb: fc.Arbitrary<AuditEvent> = fc.record({
  correlationId: fc.option(tricky, { nil: null }),
  intentId: fc.option(tricky, { nil: null }),
  actorId: tricky,
  actorType: tricky,
  eventType: tricky,
  payload: payloadArb,
});
const tenantArb = fc.constantFrom('acme', 'ac"me', 'a\\b', 'other');

function sealChain(tenant: string, events: AuditEvent[]) {
  let previous = GENESIS_HASH;
  return events.map((event, index) => {
    const sealed = sealEntry(tenant, index, previous, event, 1_700_000_000_000 + index);
    previous = sealed.entry.entryHash;
    return { index, canonical: sealed.canonical, entryHash: sealed.entry.entryHash };
  });
}

function verify(tenant: string, entries: { index: number; canonical: string; entryHash: string }[]) {
  const verifier = new ChainVerifier(tenant);
  for (const entry of entries) {
    const broken = verifier.push(entry);
    if (broken) return broken;
  }
  return null;
}

describe('ChainVerifier', () => {
  it('accepts every sealed chain, whatever its payloads imitate', () => {
    fc.assert(
      fc.property(tenantArb, fc.array(eventArb, { minLength: 1, maxLength: 6 }), (tenant, events) => {
        const entries = sealChain(tenant, events);
        assert.equal(verify(tenant, entries), null);
        for (const entry of entries) {
          const parsed = JSON.parse(entry.canonical) as { index: number; tenantId: string };
          assert.equal(parsed.index, entry.index);
          assert.equal(parsed.tenantId, tenant);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('refuses an entry resealed for another tenant, index or previous hash', () => {
    fc.assert(
      fc.property(
        tenantArb,
        fc.array(eventArb, { minLength: 2, maxLength: 5 }),
        fc.nat(),
        fc.constantFrom('tenant', 'index', 'previous'),
        (tenant, events, pick, what) => {
          const entries = sealChain(tenant, events);
          const at = pick % entries.length;
          const previous = at === 0 ? GENESIS_HASH : (entries[at - 1]?.entryHash as string);
          const event = events[at] as AuditEvent;
          const forged =
            what === 'tenant'
              ? sealEntry(`${tenant}x`, at, previous, event, 0)
              : what === 'index'
                ? sealEntry(tenant, at + 1, previous, event, 0)
                : sealEntry(tenant, at, 'f'.repeat(64), event, 0);
          entries[at] = { index: at, canonical: forged.canonical, entryHash: forged.entry.entryHash };
          const broken = verify(tenant, entries);
          assert.deepEqual(broken, {
            brokenAt: at,
            reason: what === 'previous' ? 'PREVIOUS_HASH_MISMATCH' : 'ENTRY_HASH_MISMATCH',
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a text that does not hash to its stored hash', () => {
    const [entry] = sealChain('acme', [
      { correlationId: null, intentId: null, actorId: 'a', actorType: 'b', eventType: 'c', payload: 1 },
    ]);
    assert.ok(entry);
    const altered = { ...entry, canonical: entry.canonical.replace('"payload":1', '"payload":2') };
    assert.deepEqual(verify('acme', [altered]), { brokenAt: 0, reason: 'ENTRY_HASH_MISMATCH' });
  });
});
