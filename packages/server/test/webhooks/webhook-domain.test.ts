import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyWebhookSignature } from '@authority-runtime/sdk';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { ConfigError, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, loadConfig } from '../../src/config/config.js';
import {
  type DecisionEvent,
  storedPayload,
  subscribes,
  type WebhookEvent,
} from '../../src/webhooks/events.js';
import { nextRetryDelay, verdictOf } from '../../src/webhooks/retry-schedule.js';
import { bodySignature, payloadSignature, signAttempt } from '../../src/webhooks/signatures.js';
import { newWebhookSecret } from '../../src/webhooks/webhook-views.js';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDE';
const T0 = Date.parse('2026-03-04T05:06:07.089Z');
const hex = (key: string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest('hex');

const decisionEvent = fc.record({
  event: fc.constantFrom(
    'decision.completed' as const,
    'decision.escalated' as const,
    'decision.approved' as const,
    'decision.denied' as const,
  ),
  intentId: fc.uuid(),
  decision: fc.constantFrom('APPROVED' as const, 'ESCALATED' as const, 'DENIED' as const),
  riskScore: fc.integer({ min: 0, max: 100 }),
  reason: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  occurredAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
});
const chainBreakEvent = fc.record({
  event: fc.constant('chain.break' as const),
  brokenAt: fc.nat(),
  reason: fc.constantFrom(
    'ENTRY_HASH_MISMATCH',
    'PREVIOUS_HASH_MISMATCH',
    'INDEX_GAP',
    'CHECKPOINT_MISMATCH',
  ),
  occurredAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
});
const anyEvent: fc.Arbitrary<WebhookEvent> = fc.oneof(
  decisionEvent.map((e): DecisionEvent => {
    const { reason, ...rest } = e;
    return reason === undefined ? rest : { ...rest, reason };
  }),
  chainBreakEvent,
);

describe('webhook payloads', () => {
  it('a decision event carries the contract fields, reason only when given', () => {
    const payload = storedPayload('e-1', 'acme', {
      event: 'decision.denied',
      intentId: 'i-1',
      decision: 'DENIED',
      riskScore: 95,
      reason: 'human review',
      occurredAt: T0,
    });
    assert.deepEqual(payload, {
      eventId: 'e-1',
      event: 'decision.denied',
      tenantId: 'acme',
      intentId: 'i-1',
      decision: 'DENIED',
      riskScore: 95,
      reason: 'human review',
      timestamp: '2026-03-04T05:06:07.089Z',
    });
    const withoutReason = storedPayload('e-2', 'acme', {
      event: 'decision.completed',
      intentId: 'i-2',
      decision: 'APPROVED',
      riskScore: 10,
      occurredAt: T0,
    });
    assert.equal('reason' in withoutReason, false);
  });

  it('a chain.break event has null intent fields, brokenAt and reason (contract §7)', () => {
    assert.deepEqual(
      storedPayload('e-3', 'acme', {
        event: 'chain.break',
        brokenAt: 7,
        reason: 'ENTRY_HASH_MISMATCH',
        occurredAt: T0,
      }),
      {
        eventId: 'e-3',
        event: 'chain.break',
        tenantId: 'acme',
        intentId: null,
        decision: null,
        riskScore: null,
        brokenAt: 7,
        reason: 'ENTRY_HASH_MISMATCH',
        timestamp: '2026-03-04T05:06:07.089Z',
      },
    );
  });

  it('subscriptions match the kind or "*"', () => {
    assert.equal(subscribes(['*'], 'chain.break'), true);
    assert.equal(subscribes(['decision.completed'], 'decision.completed'), true);
    assert.equal(subscribes(['decision.completed'], 'chain.break'), false);
    assert.equal(subscribes([], 'decision.denied'), false);
  });
});

describe('webhook signatures', () => {
  it('signs the payload field over its JCS and the header over the raw body, both with the secret', () => {
    const stored = storedPayload('e-1', 'acme', {
      event: 'decision.escalated',
      intentId: 'i-1',
      decision: 'ESCALATED',
      riskScore: 75,
      occurredAt: T0,
    });
    const signed = signAttempt(SECRET, stored, T0 + 1_500);
    const parsed = JSON.parse(signed.body) as Record<string, unknown>;
    assert.deepEqual(parsed, signed.payload);
    assert.equal(parsed.sentAt, '2026-03-04T05:06:08.589Z');
    const { signature, ...unsigned } = parsed;
    assert.equal(signature, `sha256=${hex(SECRET, canonicalize(unsigned) as string)}`);
    assert.equal(signed.headers['x-service-signature'], `sha256=${hex(SECRET, signed.body)}`);
    assert.equal(signed.headers['x-service-event-id'], 'e-1');
    assert.equal(signed.headers['x-service-timestamp'], String(Math.floor((T0 + 1_500) / 1000)));
    assert.equal(payloadSignature(SECRET, { ...stored, sentAt: parsed.sentAt as string }), signature);
    assert.equal(bodySignature(SECRET, signed.body), signed.headers['x-service-signature']);
  });

  it('every attempt is re-signed: another sentAt gives other signatures over the same event', () => {
    const stored = storedPayload('e-1', 'acme', {
      event: 'chain.break',
      brokenAt: 1,
      reason: 'INDEX_GAP',
      occurredAt: T0,
    });
    const first = signAttempt(SECRET, stored, T0);
    const second = signAttempt(SECRET, stored, T0 + 10_000);
    assert.notEqual(first.payload.signature, second.payload.signature);
    assert.notEqual(first.headers['x-service-signature'], second.headers['x-service-signature']);
    assert.equal(first.payload.timestamp, second.payload.timestamp);
  });

  it('property: whatever the event, the SDK accepts the attempt with the secret and refuses it with another', () => {
    fc.assert(
      fc.property(anyEvent, fc.uuid(), fc.integer({ min: 0, max: 299_000 }), (event, eventId, lag) => {
        const secret = newWebhookSecret();
        const sentAt = event.occurredAt + lag;
        const signed = signAttempt(secret, storedPayload(eventId, 'acme', event), sentAt);
        const ok = verifyWebhookSignature({
          rawBody: signed.body,
          signature: signed.headers['x-service-signature'],
          secret,
          clock: () => sentAt + lag,
        });
        assert.deepEqual(ok, { valid: true, payload: signed.payload });
        const wrong = verifyWebhookSignature({
          rawBody: signed.body,
          signature: signed.headers['x-service-signature'],
          secret: newWebhookSecret(),
          clock: () => sentAt,
        });
        assert.deepEqual(wrong, { valid: false, reason: 'SIGNATURE_MISMATCH' });
      }),
    );
  });

  it('secrets are whsec_ and 32 random bytes in base64url, never the same twice', () => {
    const secrets = new Set(Array.from({ length: 50 }, newWebhookSecret));
    assert.equal(secrets.size, 50);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(secret.slice(6), 'base64url').length, 32);
    }
  });
});

describe('retry schedule', () => {
  it('the default is the contract schedule: 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, then dead', () => {
    assert.deepEqual(
      DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
      [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000],
    );
    // Nine attempts: the first and one per step; after the ninth the delivery is dead.
    assert.notEqual(
      nextRetryDelay(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, 8, () => 0.5),
      null,
    );
    assert.equal(
      nextRetryDelay(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, 9, () => 0.5),
      null,
    );
  });

  it('full jitter (contract §7): the wait spans [0, step] as random spans [0, 1)', () => {
    const schedule = [10_000, 30_000, 7];
    assert.equal(
      nextRetryDelay(schedule, 1, () => 0),
      0,
    );
    assert.equal(
      nextRetryDelay(schedule, 1, () => 0.999_999_99),
      10_000,
    );
    assert.equal(
      nextRetryDelay(schedule, 2, () => 0.5),
      15_000,
    );
    assert.equal(
      nextRetryDelay(schedule, 3, () => 0.999_999_99),
      7,
    );
    assert.equal(
      nextRetryDelay(schedule, 4, () => 0.5),
      null,
    );
    assert.throws(() => nextRetryDelay(schedule, 0, () => 0.5), RangeError);
  });

  it('property: every wait is an integer within [0, step], and the schedule ends after its length', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 604_800_000 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 25 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (schedule, attempts, r) => {
          const delay = nextRetryDelay(schedule, attempts, () => r);
          if (attempts > schedule.length) assert.equal(delay, null);
          else {
            assert.ok(delay !== null && Number.isInteger(delay));
            const step = schedule[attempts - 1] as number;
            assert.ok(delay >= 0 && delay <= step);
          }
        },
      ),
    );
  });

  it('2xx succeeds, 410 is gone, anything else (redirects, errors, no answer) fails', () => {
    for (const status of [200, 201, 202, 204, 299]) assert.equal(verdictOf(status), 'succeeded');
    assert.equal(verdictOf(410), 'gone');
    for (const status of [undefined, 100, 301, 302, 400, 404, 429, 500, 503]) {
      assert.equal(verdictOf(status), 'failed');
    }
  });
});

describe('webhook configuration', () => {
  it('reads WEBHOOK_RETRY_SCHEDULE_MS, WEBHOOK_TIMEOUT_MS (10 s) and WEBHOOK_POLL_MS (1 s)', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.webhookRetryScheduleMs, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS);
    assert.equal(defaults.webhookTimeoutMs, 10_000);
    assert.equal(defaults.webhookPollMs, 1_000);
    const set = loadConfig({
      WEBHOOK_RETRY_SCHEDULE_MS: '100, 200,300',
      WEBHOOK_TIMEOUT_MS: '250',
      WEBHOOK_POLL_MS: '20',
    });
    assert.deepEqual(set.webhookRetryScheduleMs, [100, 200, 300]);
    assert.equal(set.webhookTimeoutMs, 250);
    assert.equal(set.webhookPollMs, 20);
  });

  it('refuses bad values naming the variable', () => {
    for (const [variable, value] of [
      ['WEBHOOK_RETRY_SCHEDULE_MS', '10,x'],
      ['WEBHOOK_RETRY_SCHEDULE_MS', '10,,20'],
      ['WEBHOOK_RETRY_SCHEDULE_MS', '0'],
      ['WEBHOOK_RETRY_SCHEDULE_MS', Array.from({ length: 21 }, () => '5').join(',')],
      ['WEBHOOK_TIMEOUT_MS', '50'],
      ['WEBHOOK_POLL_MS', '-1'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
        `${variable}=${value}`,
      );
    }
  });
});
