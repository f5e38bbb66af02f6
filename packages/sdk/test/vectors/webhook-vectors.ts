// Webhook delivery vectors (contract §7): bodies signed as the delivery worker signs them, and
// deliveries that a receiver must refuse, with the reason its check reports.
import { createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Expectation } from './token-vectors.js';

/** The receiver's clock in every webhook vector: 2023-11-14T22:15:00.000Z. */
export const WEBHOOK_NOW_MS = 1_700_000_100_000;
const SECRET = 'whsec_dGVzdC12ZWN0b3JzLW9ubHktbm90LWEtcmVhbC1zZWNyZXQtMDE';
const OTHER_SECRET = 'whsec_YW5vdGhlci1lbmRwb2ludC1zZWNyZXQtZm9yLXRlc3RzLTAy';

export interface WebhookVector {
  name: string;
  description: string;
  /** The body exactly as received (UTF-8 text). */
  rawBody: string;
  /** The `x-service-signature` header, or `null` when the request had none. */
  signatureHeader: string | null;
  expected: Expectation;
}

const mac = (secret: string, text: string) =>
  `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('hex')}`;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

interface Build {
  fields?: Record<string, unknown>;
  payloadSecret?: string;
  headerSecret?: string;
  serialize?: (payload: Record<string, unknown>) => string;
  mutateBody?: (body: string) => string;
}

/** A delivery as contract §7 describes it: payload signature over JCS, header over the raw body. */
function delivery(build: Build = {}): { rawBody: string; signatureHeader: string } {
  const unsigned: Record<string, unknown> = {
    eventId: '0190f5c2-2222-7000-8000-000000000001',
    event: 'decision.escalated',
    tenantId: 'acme',
    intentId: '0190f5c2-1111-7000-8000-000000000001',
    decision: 'ESCALATED',
    riskScore: 75,
    timestamp: iso(WEBHOOK_NOW_MS - 2_345),
    sentAt: iso(WEBHOOK_NOW_MS - 1_000),
    ...build.fields,
  };
  const canonical = canonicalize(unsigned);
  if (canonical === undefined) throw new Error('no canonical form');
  const payload = { ...unsigned, signature: mac(build.payloadSecret ?? SECRET, canonical) };
  const signedBody = (build.serialize ?? JSON.stringify)(payload);
  const rawBody = build.mutateBody ? build.mutateBody(signedBody) : signedBody;
  return { rawBody, signatureHeader: mac(build.headerSecret ?? SECRET, signedBody) };
}

/** Re-signs the header over a body whose payload signature may be wrong. */
function headerOver(rawBody: string): { rawBody: string; signatureHeader: string } {
  return { rawBody, signatureHeader: mac(SECRET, rawBody) };
}

/**
 * Every webhook vector and the secret, clock and tolerance they are checked with.
 *
 * @example
 * ```ts
 * const { secret, now, vectors } = webhookVectors();
 * ```
 */
export function webhookVectors() {
  const VALID: Expectation = { valid: true, reason: null };
  const fails = (reason: string): Expectation => ({ valid: false, reason });
  const vectors: WebhookVector[] = [];
  const add = (
    name: string,
    description: string,
    parts: { rawBody: string; signatureHeader: string | null },
    expected: Expectation,
  ) => vectors.push({ name, description, ...parts, expected });

  add('valid', 'a decision.escalated delivery sent a second ago', delivery(), VALID);
  add(
    'valid-reordered-members',
    'members in another order than JCS: the payload signature is over JCS, the header over the raw bytes',
    delivery({
      serialize: (p) => JSON.stringify(Object.fromEntries(Object.entries(p).reverse()), null, 1),
    }),
    VALID,
  );
  add(
    'valid-unicode',
    'non-ASCII text in a reason, sent raw in UTF-8',
    delivery({
      fields: { event: 'decision.denied', decision: 'DENIED', reason: 'refusé par Ünal ✓ 😀' },
    }),
    VALID,
  );
  add(
    'valid-chain-break',
    'a chain.break delivery: null intent, decision and risk score',
    delivery({
      fields: {
        event: 'chain.break',
        intentId: null,
        decision: null,
        riskScore: null,
        brokenAt: 12,
        reason: 'ENTRY_HASH_MISMATCH',
      },
    }),
    VALID,
  );
  add(
    'valid-at-tolerance',
    'sentAt exactly 300 s ago',
    delivery({ fields: { sentAt: iso(WEBHOOK_NOW_MS - 300_000) } }),
    VALID,
  );
  add(
    'valid-ahead-at-tolerance',
    'sentAt exactly 300 s ahead (the sender clock runs fast)',
    delivery({ fields: { sentAt: iso(WEBHOOK_NOW_MS + 300_000) } }),
    VALID,
  );
  add(
    'header-missing',
    'no signature header',
    { ...delivery(), signatureHeader: null },
    fails('SIGNATURE_MISSING'),
  );
  add(
    'header-garbled',
    'a header not of the form sha256=<64 hex>',
    { ...delivery(), signatureHeader: 'sha256=xyz' },
    fails('SIGNATURE_MISSING'),
  );
  add(
    'header-upper-case-hex',
    'the digest in upper-case hex',
    (() => {
      const d = delivery();
      return { ...d, signatureHeader: `sha256=${d.signatureHeader.slice(7).toUpperCase()}` };
    })(),
    fails('SIGNATURE_MISSING'),
  );
  add(
    'wrong-secret',
    "signed with another endpoint's secret",
    delivery({ headerSecret: OTHER_SECRET, payloadSecret: OTHER_SECRET }),
    fails('SIGNATURE_MISMATCH'),
  );
  add(
    'tampered-body',
    'riskScore changed after signing',
    delivery({ mutateBody: (body) => body.replace('"riskScore":75', '"riskScore":15') }),
    fails('SIGNATURE_MISMATCH'),
  );
  add(
    'tampered-whitespace',
    'one space added after signing: the header covers the raw bytes',
    delivery({ mutateBody: (body) => `${body} ` }),
    fails('SIGNATURE_MISMATCH'),
  );
  add('body-not-json', 'the signed body is not JSON', headerOver('not json'), fails('PAYLOAD_MALFORMED'));
  add(
    'body-missing-field',
    'a signed body without eventId',
    headerOver(JSON.stringify({ event: 'decision.escalated', signature: `sha256=${'0'.repeat(64)}` })),
    fails('PAYLOAD_MALFORMED'),
  );
  add(
    'payload-signature-wrong',
    'the header matches, the payload signature was made with another secret',
    (() => headerOver(delivery({ payloadSecret: OTHER_SECRET }).rawBody))(),
    fails('PAYLOAD_SIGNATURE_MISMATCH'),
  );
  add(
    'sent-at-not-a-time',
    'a signed sentAt that is not a timestamp',
    delivery({ fields: { sentAt: 'yesterday' } }),
    fails('PAYLOAD_MALFORMED'),
  );
  add(
    'stale',
    'a capture replayed 301 s after it was sent',
    delivery({ fields: { sentAt: iso(WEBHOOK_NOW_MS - 301_000) } }),
    fails('TIMESTAMP_OUT_OF_TOLERANCE'),
  );
  add(
    'stale-old-capture',
    'a delivery sent a day ago',
    delivery({
      fields: { sentAt: iso(WEBHOOK_NOW_MS - 86_400_000), timestamp: iso(WEBHOOK_NOW_MS - 86_401_000) },
    }),
    fails('TIMESTAMP_OUT_OF_TOLERANCE'),
  );
  add(
    'future',
    'sentAt 301 s ahead',
    delivery({ fields: { sentAt: iso(WEBHOOK_NOW_MS + 301_000) } }),
    fails('TIMESTAMP_OUT_OF_TOLERANCE'),
  );
  return {
    description:
      'Webhook deliveries (contract §7). Check each with `secret` at `nowMs` (ms since the epoch) with a ' +
      'tolerance of `toleranceSeconds`: the x-service-signature header over the raw body, the payload ' +
      'signature over the JCS of the payload without `signature`, then the signed sentAt; the result must be `expected`.',
    secret: SECRET,
    nowMs: WEBHOOK_NOW_MS,
    toleranceSeconds: 300,
    vectors,
  };
}
