import { createHmac } from 'node:crypto';
import { WEBHOOK_SIGNATURE_HEADER } from '@authority-runtime/sdk';
import { canonicalJson } from '../crypto/canonical-json.js';
import type { StoredPayload, WebhookPayload } from './events.js';

export const EVENT_ID_HEADER = 'x-service-event-id';
export const TIMESTAMP_HEADER = 'x-service-timestamp';

/**
 * `sha256=` + hex HMAC-SHA256 keyed by the endpoint secret. The key is the whole secret string as
 * shown to the user (`whsec_…`, UTF-8), so receivers paste it as is.
 */
function hmac(secret: string, text: string): string {
  return `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('hex')}`;
}

/** The `signature` field: over the JCS (RFC 8785) of the payload without `signature`. Pure. */
export function payloadSignature(secret: string, unsigned: Omit<WebhookPayload, 'signature'>): string {
  return hmac(secret, canonicalJson(unsigned));
}

/** The `x-service-signature` header: over the raw body bytes exactly as sent. Pure. */
export function bodySignature(secret: string, rawBody: string): string {
  return hmac(secret, rawBody);
}

export interface SignedAttempt {
  payload: WebhookPayload;
  body: string;
  headers: Record<string, string>;
}

/**
 * Builds one attempt: the stored payload plus this attempt's `sentAt`, signed both ways (contract
 * §7). Every attempt is rebuilt and re-signed, so a receiver can bound the age of what it accepts.
 * Pure.
 */
export function signAttempt(secret: string, stored: StoredPayload, sentAtMs: number): SignedAttempt {
  const unsigned = { ...stored, sentAt: new Date(sentAtMs).toISOString() };
  const payload: WebhookPayload = { ...unsigned, signature: payloadSignature(secret, unsigned) };
  const body = JSON.stringify(payload);
  return {
    payload,
    body,
    headers: {
      [WEBHOOK_SIGNATURE_HEADER]: bodySignature(secret, body),
      [EVENT_ID_HEADER]: stored.eventId,
      [TIMESTAMP_HEADER]: String(Math.floor(sentAtMs / 1000)),
    },
  };
}
