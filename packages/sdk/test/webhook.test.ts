import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import {
  type VerifyWebhookOptions,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_VERIFICATION_REASONS,
} from '../src/index.js';

const SECRET = 'whsec_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const OTHER = 'whsec_b3RoZXJvdGhlcm90aGVyb3RoZXJvdGhlcm90aGVyb3Ro';
const SENT_AT = '2026-05-01T12:00:00.000Z';
const NOW = Date.parse(SENT_AT);

const mac = (secret: string, text: string) =>
  `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('hex')}`;

/** A delivery built the way contract §7 describes it, independently of the service's code. */
function delivery(
  fields: Record<string, unknown> = {},
  options: { payloadSecret?: string; headerSecret?: string; serialize?: (p: object) => string } = {},
) {
  const unsigned = {
    eventId: '0196a1b2-0000-7000-8000-000000000001',
    event: 'decision.escalated',
    tenantId: 'acme',
    intentId: '0196a1b2-0000-7000-8000-0000000000aa',
    decision: 'ESCALATED',
    riskScore: 75,
    timestamp: '2026-05-01T11:59:58.123Z',
    sentAt: SENT_AT,
    ...fields,
  };
  const payload = {
    ...unsigned,
    signature: mac(options.payloadSecret ?? SECRET, canonicalize(unsigned) as string),
  };
  const rawBody = (options.serialize ?? JSON.stringify)(payload);
  return { payload, rawBody, signature: mac(options.headerSecret ?? SECRET, rawBody) };
}

const verify = (d: { rawBody: string; signature: string }, extra: Partial<VerifyWebhookOptions> = {}) =>
  verifyWebhookSignature({
    rawBody: d.rawBody,
    signature: d.signature,
    secret: SECRET,
    clock: () => NOW,
    ...extra,
  });

describe('verifyWebhookSignature', () => {
  it('accepts a delivery signed with the secret and returns its payload', () => {
    const d = delivery();
    assert.deepEqual(verify(d), { valid: true, payload: d.payload });
    assert.equal(WEBHOOK_SIGNATURE_HEADER, 'x-service-signature');
    assert.equal(WEBHOOK_TOLERANCE_SECONDS, 300);
  });

  it('accepts the raw body as bytes, and a header given as a one-element array', () => {
    const d = delivery();
    assert.equal(verify(d, { rawBody: Buffer.from(d.rawBody) }).valid, true);
    assert.equal(verify(d, { rawBody: new TextEncoder().encode(d.rawBody) }).valid, true);
    assert.equal(verify(d, { signature: [d.signature] }).valid, true);
  });

  it('accepts a chain.break delivery with null intent fields', () => {
    const d = delivery({
      event: 'chain.break',
      intentId: null,
      decision: null,
      riskScore: null,
      brokenAt: 12,
      reason: 'ENTRY_HASH_MISMATCH',
    });
    const result = verify(d);
    assert.equal(result.valid, true);
    assert.equal(result.valid && result.payload.brokenAt, 12);
  });

  it('the payload signature does not depend on member order or spacing of the body', () => {
    const d = delivery(
      {},
      { serialize: (p) => JSON.stringify(Object.fromEntries(Object.entries(p).reverse()), null, 2) },
    );
    assert.equal(verify(d).valid, true);
  });

  it('refuses a missing, malformed or repeated header as SIGNATURE_MISSING', () => {
    const d = delivery();
    for (const signature of [
      undefined,
      null,
      '',
      'sha256=',
      d.signature.toUpperCase(),
      `sha1=${'0'.repeat(40)}`,
      [d.signature, d.signature],
      [],
    ]) {
      assert.deepEqual(
        verify(d, { signature }),
        { valid: false, reason: 'SIGNATURE_MISSING' },
        String(signature),
      );
    }
  });

  it('refuses another secret as SIGNATURE_MISMATCH, and accepts either secret while rotating', () => {
    const d = delivery();
    assert.deepEqual(verify(d, { secret: OTHER }), { valid: false, reason: 'SIGNATURE_MISMATCH' });
    assert.equal(verify(d, { secret: [OTHER, SECRET] }).valid, true);
    const rotated = delivery({}, { payloadSecret: OTHER, headerSecret: OTHER });
    assert.equal(verify(rotated, { secret: [SECRET, OTHER] }).valid, true);
  });

  it('property: any change to the body is SIGNATURE_MISMATCH', () => {
    const d = delivery();
    fc.assert(
      fc.property(fc.nat({ max: d.rawBody.length - 1 }), fc.integer({ min: 1, max: 94 }), (at, shift) => {
        const code = d.rawBody.charCodeAt(at);
        const changed = `${d.rawBody.slice(0, at)}${String.fromCharCode(32 + ((code - 32 + shift) % 95))}${d.rawBody.slice(at + 1)}`;
        fc.pre(changed !== d.rawBody);
        assert.deepEqual(verify({ ...d, rawBody: changed }), { valid: false, reason: 'SIGNATURE_MISMATCH' });
      }),
    );
  });

  it('checks the payload signature too: a header that matches cannot cover a forged signature field', () => {
    const forged = delivery({}, { payloadSecret: OTHER, headerSecret: SECRET });
    assert.deepEqual(verify(forged), { valid: false, reason: 'PAYLOAD_SIGNATURE_MISMATCH' });
  });

  it('refuses a signed body that is not a delivery payload as PAYLOAD_MALFORMED', () => {
    const bodies = [
      'not json',
      '[]',
      '{}',
      JSON.stringify({ ...delivery().payload, signature: 'sha256=zz' }),
      JSON.stringify({ ...delivery().payload, riskScore: '75' }),
      JSON.stringify({ ...delivery().payload, eventId: undefined }),
      JSON.stringify({ ...delivery().payload, brokenAt: '12' }),
      JSON.stringify({ ...delivery().payload, reason: 7 }),
    ];
    for (const rawBody of bodies) {
      assert.deepEqual(
        verify({ rawBody, signature: mac(SECRET, rawBody) }),
        { valid: false, reason: 'PAYLOAD_MALFORMED' },
        rawBody,
      );
    }
    const badSentAt = delivery({ sentAt: 'yesterday' });
    assert.deepEqual(verify(badSentAt), { valid: false, reason: 'PAYLOAD_MALFORMED' });
  });

  it('refuses a sentAt more than the tolerance away (a replay), in both directions', () => {
    const d = delivery();
    assert.equal(verify(d, { clock: () => NOW + 300_000 }).valid, true);
    assert.equal(verify(d, { clock: () => NOW - 300_000 }).valid, true);
    assert.deepEqual(verify(d, { clock: () => NOW + 300_001 }), {
      valid: false,
      reason: 'TIMESTAMP_OUT_OF_TOLERANCE',
    });
    assert.deepEqual(verify(d, { clock: () => NOW - 300_001 }), {
      valid: false,
      reason: 'TIMESTAMP_OUT_OF_TOLERANCE',
    });
    assert.equal(verify(d, { clock: () => NOW + 20_000, toleranceSeconds: 10 }).valid, false);
  });

  it('reports the first failing check, in the documented order', () => {
    assert.deepEqual(WEBHOOK_VERIFICATION_REASONS, [
      'SIGNATURE_MISSING',
      'SIGNATURE_MISMATCH',
      'PAYLOAD_MALFORMED',
      'PAYLOAD_SIGNATURE_MISMATCH',
      'TIMESTAMP_OUT_OF_TOLERANCE',
    ]);
    const staleAndForged = delivery({}, { payloadSecret: OTHER });
    assert.deepEqual(verify(staleAndForged, { clock: () => 0, secret: OTHER }), {
      valid: false,
      reason: 'SIGNATURE_MISMATCH',
    });
    assert.deepEqual(verify(staleAndForged, { clock: () => 0 }), {
      valid: false,
      reason: 'PAYLOAD_SIGNATURE_MISMATCH',
    });
  });

  it('throws when no secret is given (a programming error, not a bad delivery)', () => {
    const d = delivery();
    assert.throws(() => verify(d, { secret: '' }), TypeError);
    assert.throws(() => verify(d, { secret: [] }), TypeError);
  });
});
