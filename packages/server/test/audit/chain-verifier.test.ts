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
import { type ChainBreak, ChainVerifier, type StoredEntry } from '../../src/chain/chain-verifier.js';
import { canonicalJson, sha256Hex } from '../../src/crypto/canonical-json.js';

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

  it('decides every rehashed mutation of the members it reads as the comparison of whole expected members does', () => {
    // The verifier compares the members in place, piece by piece; this reference builds each
    // expected member as a string and compares it whole (the implementation before issue 19's
    // second pass). Texts are mutated next to the index, previous hash and tenant members, then
    // rehashed, so that only those comparisons can refuse them.
    function reference(tenant: string, entries: StoredEntry[]): ChainBreak | null {
      const tail = `,"tenantId":${canonicalJson(tenant)}}`;
      let previous = GENESIS_HASH;
      for (const [expected, stored] of entries.entries()) {
        if (stored.index !== expected)
          return { brokenAt: Math.min(stored.index, expected), reason: 'INDEX_GAP' };
        const text = stored.canonical;
        const indexAt = text.indexOf(',"index":');
        const consistent =
          sha256Hex(text) === stored.entryHash &&
          indexAt >= 0 &&
          text.startsWith(`,"index":${stored.index},"intentId":`, indexAt) &&
          text.endsWith(tail);
        if (!consistent) return { brokenAt: stored.index, reason: 'ENTRY_HASH_MISMATCH' };
        const linkAt = text.length - tail.length - (',"previousHash":""'.length + 64);
        if (!text.startsWith(`,"previousHash":"${previous}"`, linkAt)) {
          return { brokenAt: stored.index, reason: 'PREVIOUS_HASH_MISMATCH' };
        }
        previous = stored.entryHash;
      }
      return null;
    }
    const anchors = [',"index":', ',"intentId":', ',"previousHash":"', ',"tenantId":'];
    fc.assert(
      fc.property(
        tenantArb,
        fc.array(eventArb, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom(...anchors),
        fc.integer({ min: -3, max: 90 }),
        fc.constantFrom('delete', 'insert', 'replace'),
        fc.constantFrom('"', '0', '1', 'f', ',', '}', 'x'),
        (tenant, events, pick, anchor, offset, edit, character) => {
          const entries: StoredEntry[] = sealChain(tenant, events);
          const at = pick % entries.length;
          const entry = entries[at] as StoredEntry;
          const base = entry.canonical.lastIndexOf(anchor);
          const position = Math.min(Math.max(0, base + offset), entry.canonical.length);
          const text = entry.canonical;
          const mutated =
            edit === 'delete'
              ? text.slice(0, position) + text.slice(position + 1)
              : edit === 'insert'
                ? text.slice(0, position) + character + text.slice(position)
                : text.slice(0, position) + character + text.slice(position + 1);
          entries[at] = { index: at, canonical: mutated, entryHash: sha256Hex(mutated) };
          assert.deepEqual(verify(tenant, entries), reference(tenant, entries));
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
