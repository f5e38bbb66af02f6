import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../src/errors/app-error.js';
import {
  canonicalGoal,
  checkTicketRedeemable,
  consumeTicket,
  decideTicket,
  newOperatorTicket,
  type OperatorTicket,
  TICKET_LIFETIME_MS,
  ticketAsOf,
  ticketStatusAt,
} from '../../src/physical/domain/operator-ticket.js';
import { nextRevokedAtMs } from '../../src/physical/domain/revocation-time.js';
import { goal, NOW } from './fixtures.js';

const ID = 'esc_0190d7a4-0000-7000-8000-00000000000a';

function pending(): OperatorTicket {
  return newOperatorTicket({
    ticketId: ID,
    tenantId: 'acme',
    oiCode: 'OI-1502',
    structuredGoal: goal(),
    nowMs: NOW,
  });
}

function conflictStatus(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'CONFLICT');
    assert.equal(error.status, 409);
    return error.details?.status;
  }
  assert.fail('expected 409 conflict');
}

describe('states table: escalation tickets', () => {
  test('a new ticket is pending for one hour, with the document’s fields', () => {
    const t = pending();
    assert.deepEqual(Object.keys(t).sort(), [
      'approvedAtMs',
      'approvedBy',
      'createdAtMs',
      'expiresAtMs',
      'intent',
      'rejectionReason',
      'status',
      'tenantId',
      'ticketId',
    ]);
    assert.equal(t.status, 'pending');
    assert.equal(t.createdAtMs, NOW);
    assert.equal(t.expiresAtMs, NOW + 3_600_000);
    assert.equal(TICKET_LIFETIME_MS, 3_600_000);
    assert.deepEqual([t.approvedBy, t.approvedAtMs, t.rejectionReason], [null, null, null]);
    assert.throws(() =>
      newOperatorTicket({ ...t, ticketId: 'tkt_1', oiCode: 'OI-1502', structuredGoal: goal(), nowMs: NOW }),
    );
  });

  test('pending + approved, ticket still pending → approved, the principal recorded as approvedBy', () => {
    const t = decideTicket(
      pending(),
      { decision: 'approved', principal: 'key_42', reason: 'ignored' },
      NOW + 5_000,
    );
    assert.equal(t.status, 'approved');
    assert.equal(t.approvedBy, 'key_42');
    assert.equal(t.approvedAtMs, NOW + 5_000);
    assert.equal(t.rejectionReason, null);
  });

  test('pending + rejected → rejected, reason recorded (and the deciding principal)', () => {
    const t = decideTicket(
      pending(),
      { decision: 'rejected', principal: 'user_7', reason: 'cell occupied' },
      NOW + 1,
    );
    assert.deepEqual([t.status, t.rejectionReason, t.approvedBy], ['rejected', 'cell occupied', 'user_7']);
    const silent = decideTicket(pending(), { decision: 'rejected', principal: 'user_7' }, NOW + 1);
    assert.equal(silent.rejectionReason, null);
  });

  test('pending + time passes → reported as expired once expiresAtMs has elapsed', () => {
    const t = pending();
    assert.equal(ticketStatusAt(t, t.expiresAtMs - 1), 'pending');
    assert.equal(ticketStatusAt(t, t.expiresAtMs), 'expired');
    assert.equal(ticketAsOf(t, t.expiresAtMs).status, 'expired');
    assert.equal(ticketAsOf(t, NOW), t, 'unchanged tickets are returned as they are');
    const approved = decideTicket(t, { decision: 'approved', principal: 'k' }, NOW);
    assert.equal(ticketStatusAt(approved, approved.expiresAtMs), 'expired');
  });

  test('decide on a ticket that is not pending → 409 conflict, ticket unchanged', () => {
    const approved = decideTicket(pending(), { decision: 'approved', principal: 'k' }, NOW);
    const rejected = decideTicket(pending(), { decision: 'rejected', principal: 'k' }, NOW);
    assert.equal(
      conflictStatus(() => decideTicket(approved, { decision: 'rejected', principal: 'k' }, NOW)),
      'approved',
    );
    assert.equal(
      conflictStatus(() => decideTicket(rejected, { decision: 'approved', principal: 'k' }, NOW)),
      'rejected',
    );
    assert.equal(
      conflictStatus(() =>
        decideTicket(consumeTicket(approved), { decision: 'approved', principal: 'k' }, NOW),
      ),
      'consumed',
    );
    const t = pending();
    assert.equal(
      conflictStatus(() => decideTicket(t, { decision: 'approved', principal: 'k' }, t.expiresAtMs)),
      'expired',
    );
    assert.equal(t.status, 'pending');
  });
});

describe('ticket redemption', () => {
  const approved = () => decideTicket(pending(), { decision: 'approved', principal: 'k' }, NOW);

  test('an approved ticket redeems once for the same code and canonical goal', () => {
    const t = approved();
    const reordered = {
      actor: goal().actor,
      verb: 'pick',
      schema: 'robot.manipulation/v1',
      object: 'bracket-17',
      sourceTimestampMs: NOW + 900_000,
    };
    assert.equal(checkTicketRedeemable(t, { oiCode: 'OI-1502', goal: reordered }, NOW + 1_000), t);
    const consumed = consumeTicket(t);
    assert.equal(consumed.status, 'consumed');
    assert.equal(
      conflictStatus(() => checkTicketRedeemable(consumed, { oiCode: 'OI-1502', goal: goal() }, NOW)),
      'consumed',
    );
    assert.throws(() => consumeTicket(consumed), /only an approved ticket/);
  });

  test('the canonical goal fills defaults and ignores sourceTimestampMs only', () => {
    const g = goal();
    assert.equal(
      canonicalGoal({ ...g, object: undefined, parameters: undefined }),
      canonicalGoal({ ...g, object: null, parameters: {} }),
    );
    assert.equal(
      canonicalGoal({ ...g, sourceTimestampMs: 1 }),
      canonicalGoal({ ...g, sourceTimestampMs: 2 }),
    );
    for (const changed of [
      { ...g, verb: 'place' },
      { ...g, object: 'bracket-18' },
      { ...g, parameters: { force: 1 } },
      { ...g, actor: { ...g.actor, identifier: 'devid:arm-8' } },
      { ...g, actor: { ...g.actor, kind: 'cobot' as const } },
      { ...g, schema: 'robot.manipulation/v2' },
    ]) {
      assert.notEqual(canonicalGoal(changed), canonicalGoal(g), JSON.stringify(changed));
    }
  });

  test('not found, not approved, expired, other code or goal', () => {
    assert.throws(
      () => checkTicketRedeemable(undefined, { oiCode: 'OI-1502', goal: goal() }, NOW),
      (e: unknown) => e instanceof AppError && e.code === 'NOT_FOUND' && e.status === 404,
    );
    assert.equal(
      conflictStatus(() => checkTicketRedeemable(pending(), { oiCode: 'OI-1502', goal: goal() }, NOW)),
      'pending',
    );
    const t = approved();
    assert.equal(
      conflictStatus(() => checkTicketRedeemable(t, { oiCode: 'OI-1502', goal: goal() }, t.expiresAtMs)),
      'expired',
    );
    assert.equal(
      conflictStatus(() => checkTicketRedeemable(t, { oiCode: 'OI-1503', goal: goal() }, NOW)),
      'approved',
    );
    assert.equal(
      conflictStatus(() =>
        checkTicketRedeemable(t, { oiCode: 'OI-1502', goal: goal({ verb: 'place' }) }, NOW),
      ),
      'approved',
    );
  });
});

describe('revocation time', () => {
  test('is the clock, but strictly after the tenant’s previous revocation', () => {
    assert.equal(nextRevokedAtMs(NOW, null), NOW);
    assert.equal(nextRevokedAtMs(NOW, NOW - 5), NOW);
    assert.equal(nextRevokedAtMs(NOW, NOW), NOW + 1);
    assert.equal(nextRevokedAtMs(NOW, NOW + 40), NOW + 41);
  });

  test('a sequence of revocations is strictly increasing whatever the clock does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 50 }), (clock) => {
        let previous: number | null = null;
        for (const now of clock) {
          const next: number = nextRevokedAtMs(now, previous);
          assert.ok(next >= now);
          if (previous !== null) assert.ok(next > previous);
          previous = next;
        }
      }),
    );
  });
});
