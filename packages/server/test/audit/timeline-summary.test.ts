// The timeline's one-line summary says what an entry changed, so a reader (the console's settings
// page, say) needs no payload: a switch's new state, a decision, a reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summarize } from '../../src/audit/timeline.js';
import type { AuditEntry } from '../../src/chain/audit-entry.js';

const entry = (eventType: string, payload: unknown): AuditEntry => ({
  index: 3,
  tenantId: 'acme',
  correlationId: null,
  intentId: null,
  actorId: 'ada@acme.test',
  actorType: 'portal_user',
  eventType,
  payload,
  previousHash: '0'.repeat(64),
  entryHash: '1'.repeat(64),
  createdAt: '2026-11-29T23:00:00.000Z',
});

describe('timeline summaries', () => {
  it("name a switch's new state: the floor and the kill switch", () => {
    assert.equal(
      summarize(entry('floor.changed', { enabled: false, agreementVersion: '2026-01' })),
      'floor.changed: disabled',
    );
    assert.equal(summarize(entry('floor.changed', { enabled: true })), 'floor.changed: enabled');
    assert.equal(
      summarize(entry('killswitch.changed', { enabled: true, previous: false, reason: 'incident 42' })),
      'killswitch.changed: enabled, incident 42',
    );
  });

  it('keep the event type alone when the payload says nothing more', () => {
    assert.equal(summarize(entry('keys.rotated', { enabled: 'yes' })), 'keys.rotated');
    assert.equal(summarize(entry('tenant.created', null)), 'tenant.created');
  });
});
