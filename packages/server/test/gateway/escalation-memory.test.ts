import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EscalationMemory, EXPIRED_NOTICE_MS } from '../../src/gateway/escalation-memory.js';

const escalation = { intentId: 'i1', escalationId: 'e1', decidingRule: undefined, tokenKey: 'k1' };

describe('the escalations a gateway remembers (contract §11, step 3)', () => {
  it('keeps an escalation past its expiry for a day, so a repeat hears it expired, then forgets it', () => {
    let now = Date.parse('2026-11-29T10:00:00.000Z');
    const memory = new EscalationMemory({ now: () => now });
    memory.remember('call', escalation, '2026-11-29T11:00:00.000Z');
    now += 60 * 60 * 1000 + 1;
    assert.deepEqual(memory.get('call'), escalation, 'just after expiresAt: still known');
    now += EXPIRED_NOTICE_MS - 2;
    assert.deepEqual(memory.get('call'), escalation, 'a day after expiresAt, less a millisecond');
    now += 2;
    assert.equal(memory.get('call'), undefined, 'more than a day after expiresAt');
  });

  it('keeps it at least a minute past a day when the clocks disagree or expiresAt is unreadable', () => {
    let now = Date.parse('2026-11-29T10:00:00.000Z');
    const memory = new EscalationMemory({ now: () => now });
    memory.remember('skewed', escalation, '2026-11-29T09:00:00.000Z');
    memory.remember('unreadable', escalation, 'soon');
    now += 60_000 + EXPIRED_NOTICE_MS - 1;
    assert.ok(memory.get('skewed') && memory.get('unreadable'));
    now += 2;
    assert.equal(memory.get('skewed') ?? memory.get('unreadable'), undefined);
  });

  it('is bounded: the least recently used escalation goes first', () => {
    const memory = new EscalationMemory({ max: 2 });
    const later = new Date(Date.now() + 60_000).toISOString();
    memory.remember('a', escalation, later);
    memory.remember('b', escalation, later);
    memory.get('a');
    memory.remember('c', escalation, later);
    assert.equal(memory.get('b'), undefined);
    assert.ok(memory.get('a') && memory.get('c'));
  });
});
