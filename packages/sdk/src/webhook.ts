import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical.js';
import { isRecord } from './keys.js';
import type { WebhookPayload } from './wire/webhooks.js';

/** The header carrying `sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-service-signature';

/** How far the signed `sentAt` may be from the receiver's clock, in seconds (contract §7). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Why a delivery was refused, in the order the checks run:
 *
 * - `SIGNATURE_MISSING`: no `x-service-signature` header, or not of the form `sha256=<64 hex>`.
 * - `SIGNATURE_MISMATCH`: the header does not match the raw body under any given secret.
 * - `PAYLOAD_MALFORMED`: the body is not a delivery payload (JSON object with the documented fields).
 * - `PAYLOAD_SIGNATURE_MISMATCH`: the payload's own `signature` field does not match.
 * - `TIMESTAMP_OUT_OF_TOLERANCE`: the signed `sentAt` is further than the tolerance from now, so a
 *   captured delivery replayed later is refused.
 *
 * @example
 * ```ts
 * import { WEBHOOK_VERIFICATION_REASONS } from '@authority-runtime/sdk';
 *
 * WEBHOOK_VERIFICATION_REASONS.includes('SIGNATURE_MISMATCH'); // true
 * ```
 */
export const WEBHOOK_VERIFICATION_REASONS = [
  'SIGNATURE_MISSING',
  'SIGNATURE_MISMATCH',
  'PAYLOAD_MALFORMED',
  'PAYLOAD_SIGNATURE_MISMATCH',
  'TIMESTAMP_OUT_OF_TOLERANCE',
] as const;

/** One of {@link WEBHOOK_VERIFICATION_REASONS}. */
export type WebhookVerificationReason = (typeof WEBHOOK_VERIFICATION_REASONS)[number];

/** The JSON body of a webhook delivery (docs/webhooks.md): the wire contract's `WebhookPayload`. */
export type { WebhookPayload };

/** Options of {@link verifyWebhookSignature}. */
export interface VerifyWebhookOptions {
  /** The request body exactly as received (bytes or their UTF-8 text), before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** The `x-service-signature` header as your framework gives it. */
  signature: string | readonly string[] | null | undefined;
  /**
   * The endpoint secret (`whsec_…`), or several while you switch to a rotated one: a delivery
   * signed with any of them is accepted.
   */
  secret: string | readonly string[];
  /** Accepted distance between `sentAt` and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Time source in ms since the epoch; defaults to `Date.now`. */
  clock?: () => number;
}

/** The result of {@link verifyWebhookSignature}. */
export type WebhookVerification =
  | { valid: true; payload: WebhookPayload }
  | { valid: false; reason: WebhookVerificationReason };

const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;

function hmac(secret: string, data: string | Uint8Array): Buffer {
  const mac = createHmac('sha256', secret);
  if (typeof data === 'string') mac.update(data, 'utf8');
  else mac.update(data);
  return mac.digest();
}

/** Constant-time comparison of a `sha256=<hex>` value with a digest. */
function matches(signature: string, digest: Buffer): boolean {
  return timingSafeEqual(Buffer.from(signature.slice('sha256='.length), 'hex'), digest);
}

function isPayload(value: unknown): value is WebhookPayload {
  if (!isRecord(value)) return false;
  const nullableString = (v: unknown) => v === null || typeof v === 'string';
  return (
    typeof value.eventId === 'string' &&
    typeof value.event === 'string' &&
    typeof value.tenantId === 'string' &&
    nullableString(value.intentId) &&
    nullableString(value.decision) &&
    (value.riskScore === null || typeof value.riskScore === 'number') &&
    (value.brokenAt === undefined || Number.isSafeInteger(value.brokenAt)) &&
    (value.reason === undefined || typeof value.reason === 'string') &&
    typeof value.timestamp === 'string' &&
    typeof value.sentAt === 'string' &&
    typeof value.signature === 'string' &&
    SIGNATURE_PATTERN.test(value.signature)
  );
}

/**
 * Verifies a webhook delivery before you act on it: the `x-service-signature` header over the raw
 * body, then the payload's own `signature` over its canonical JSON, then that the signed `sentAt`
 * is within the tolerance of your clock. Comparisons run in constant time. Returns the parsed
 * payload only when every check passed; throws only for misuse (no secret given).
 *
 * Delivery is at least once: remember the `eventId`s you processed and skip repeats.
 *
 * @example
 * ```ts
 * import { verifyWebhookSignature } from '@authority-runtime/sdk';
 *
 * // Express: app.post('/hooks', express.raw({ type: 'application/json' }), (req, res) => { … })
 * const result = verifyWebhookSignature({
 *   rawBody: req.body, // a Buffer: the bytes as received
 *   signature: req.headers['x-service-signature'],
 *   secret: process.env.AUTHORITY_WEBHOOK_SECRET!,
 * });
 * if (!result.valid) return res.status(400).send(result.reason);
 * console.log(result.payload.event, result.payload.intentId);
 * res.sendStatus(204);
 * ```
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): WebhookVerification {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhookSignature needs the endpoint secret');
  }
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const now = (options.clock ?? Date.now)();

  const header = Array.isArray(options.signature)
    ? options.signature.length === 1
      ? options.signature[0]
      : undefined
    : options.signature;
  if (typeof header !== 'string' || !SIGNATURE_PATTERN.test(header)) {
    return { valid: false, reason: 'SIGNATURE_MISSING' };
  }
  // Check every secret (no early exit), so timing does not tell which one matched.
  let secret: string | undefined;
  for (const candidate of secrets) {
    if (matches(header, hmac(candidate, options.rawBody)) && secret === undefined) secret = candidate;
  }
  if (secret === undefined) return { valid: false, reason: 'SIGNATURE_MISMATCH' };

  const text =
    typeof options.rawBody === 'string' ? options.rawBody : Buffer.from(options.rawBody).toString();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { valid: false, reason: 'PAYLOAD_MALFORMED' };
  }
  if (!isPayload(parsed)) return { valid: false, reason: 'PAYLOAD_MALFORMED' };
  const { signature, ...unsigned } = parsed;
  const canonical = canonicalJson(unsigned);
  if (canonical === undefined) return { valid: false, reason: 'PAYLOAD_MALFORMED' };
  if (!matches(signature, hmac(secret, canonical))) {
    return { valid: false, reason: 'PAYLOAD_SIGNATURE_MISMATCH' };
  }

  const sentAt = Date.parse(parsed.sentAt);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(parsed.sentAt) || Number.isNaN(sentAt)) {
    return { valid: false, reason: 'PAYLOAD_MALFORMED' };
  }
  if (Math.abs(now - sentAt) > tolerance * 1000) {
    return { valid: false, reason: 'TIMESTAMP_OUT_OF_TOLERANCE' };
  }
  return { valid: true, payload: parsed };
}
