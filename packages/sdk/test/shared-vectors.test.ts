// The shared vectors of sdks/test-vectors, checked with this SDK. The Python and Go SDKs check the
// same files, so that the three verifiers accept and refuse exactly the same inputs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { canonicalJson, sha256Hex } from '../src/canonical.js';
import {
  InMemoryNonceStore,
  type JWK,
  staticJwks,
  verifyAuthorityToken,
  verifyReceipt,
  verifyWebhookSignature,
} from '../src/index.js';

interface Expectation {
  valid: boolean;
  reason: string | null;
}

function load<T>(name: string): T {
  return JSON.parse(
    readFileSync(new URL(`../../../sdks/test-vectors/${name}`, import.meta.url), 'utf8'),
  ) as T;
}

const tokens = load<{
  now: number;
  clockSkewSeconds: number;
  expected: { tenantId: string; adapterId: string; targetSystem: string };
  jwks: { keys: JWK[] };
  vectors: { name: string; token: string; consumedNonces: string[]; expected: Expectation }[];
}>('tokens.json');

describe('shared vectors: Authority Decision Tokens', () => {
  const nowMs = tokens.now * 1000;
  const jwks = staticJwks(tokens.jwks);
  assert.ok(tokens.vectors.length > 100);
  for (const vector of tokens.vectors) {
    it(vector.name, async () => {
      const nonceStore = new InMemoryNonceStore({ clock: () => nowMs });
      const context = { token: vector.token, ...tokens.expected };
      for (const nonce of vector.consumedNonces) {
        assert.equal(await nonceStore.consume(nonce, nowMs + 3_600_000, context), true);
      }
      const options = {
        jwks,
        expected: tokens.expected,
        nonceStore,
        clock: () => nowMs,
        clockSkewSeconds: tokens.clockSkewSeconds,
      };
      const result = await verifyAuthorityToken(vector.token, options);
      const got = result.valid ? { valid: true, reason: null } : { valid: false, reason: result.reason };
      assert.deepEqual(got, vector.expected, result.valid ? 'valid' : result.detail);
      if (result.valid) {
        assert.equal(nonceStore.size, vector.consumedNonces.length + 1, 'a valid token consumes its nonce');
        const replay = await verifyAuthorityToken(vector.token, options);
        assert.equal(replay.valid ? 'valid' : replay.reason, 'NONCE_ALREADY_CONSUMED');
      } else {
        assert.equal(nonceStore.size, vector.consumedNonces.length, 'a refused token consumes nothing');
      }
    });
  }
});

const webhooks = load<{
  secret: string;
  nowMs: number;
  toleranceSeconds: number;
  vectors: { name: string; rawBody: string; signatureHeader: string | null; expected: Expectation }[];
}>('webhooks.json');

describe('shared vectors: webhook deliveries', () => {
  for (const vector of webhooks.vectors) {
    it(vector.name, () => {
      const result = verifyWebhookSignature({
        rawBody: Buffer.from(vector.rawBody, 'utf8'),
        signature: vector.signatureHeader,
        secret: webhooks.secret,
        toleranceSeconds: webhooks.toleranceSeconds,
        clock: () => webhooks.nowMs,
      });
      const got = result.valid ? { valid: true, reason: null } : { valid: false, reason: result.reason };
      assert.deepEqual(got, vector.expected);
    });
  }
});

const receipts = load<{
  pinnedJwks: { keys: JWK[] };
  pinnedLogKey: string;
  vectors: {
    name: string;
    expectedTenantId: string | null;
    logKey: string | null;
    receipt: { receiptVersion?: unknown };
    expected: Expectation;
  }[];
}>('receipts.json');

describe('shared vectors: receipts', () => {
  assert.ok(receipts.vectors.some((vector) => vector.receipt.receiptVersion === 2));
  const check = async (vector: (typeof receipts.vectors)[number], logKey: string | null) => {
    const result = await verifyReceipt(vector.receipt, {
      jwks: receipts.pinnedJwks,
      ...(vector.expectedTenantId === null ? {} : { expectedTenantId: vector.expectedTenantId }),
      ...(logKey === null ? {} : { logKey }),
    });
    const got = result.valid ? { valid: true, reason: null } : { valid: false, reason: result.reason };
    assert.deepEqual(got, vector.expected, result.valid ? 'valid' : result.detail);
  };
  for (const vector of receipts.vectors) {
    it(vector.name, async () => {
      await check(vector, vector.logKey);
      // A receipt that is not version 2 gives the same result with the log key given.
      if (vector.receipt.receiptVersion !== 2 && vector.logKey === null) {
        await check(vector, receipts.pinnedLogKey);
      }
    });
  }
});

const canonical = load<{
  vectors: { name: string; json: string; canonical: string | null; sha256: string | null }[];
}>('canonical-json.json');

describe('shared vectors: canonical JSON', () => {
  it('gives every vector its canonical form and hash', () => {
    for (const vector of canonical.vectors) {
      const text = canonicalJson(JSON.parse(vector.json));
      assert.equal(text ?? null, vector.canonical, vector.name);
      assert.equal(text === undefined ? null : sha256Hex(text), vector.sha256, vector.name);
    }
  });
});
