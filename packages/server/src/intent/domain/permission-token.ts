import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../../crypto/canonical-json.js';
import type { Effect } from '../../policy/rule.js';

/** The Authority Permission Token (intent document, contract §4.9): a signed JSON object, not a JWT. */
export interface PermissionToken {
  tokenId: string;
  tenantId: string;
  intentId: string;
  policyPack: string;
  ruleId: string;
  decision: 'allow' | 'review' | 'deny';
  riskScore: number;
  issuedAt: string;
  expiresAt: string;
  secretId: string;
  signature: string;
}

export const PERMISSION_TTL_SECONDS = { allow: 300, review: 3600, deny: 300 } as const;

export function permissionDecision(effect: Effect): PermissionToken['decision'] {
  return effect === 'ALLOW' ? 'allow' : effect === 'DENY' ? 'deny' : 'review';
}

function sign(secret: Buffer, fields: Omit<PermissionToken, 'signature'>): string {
  return createHmac('sha256', secret).update(canonicalJson(fields), 'utf8').digest('base64url');
}

/** Builds and signs a permission token: HMAC-SHA256 over the JCS of every other field. Pure. */
export function signPermissionToken(
  fields: Omit<PermissionToken, 'signature' | 'secretId' | 'issuedAt' | 'expiresAt'>,
  secret: { id: string; secret: Buffer },
  nowMs: number,
): PermissionToken {
  const issuedAt = new Date(nowMs).toISOString();
  const expiresAt = new Date(nowMs + PERMISSION_TTL_SECONDS[fields.decision] * 1000).toISOString();
  const unsigned = { ...fields, issuedAt, expiresAt, secretId: secret.id };
  return { ...unsigned, signature: sign(secret.secret, unsigned) };
}

export type PermissionVerification = { valid: true } | { valid: false; reason: string };

const FIELDS = [
  'tokenId',
  'tenantId',
  'intentId',
  'policyPack',
  'ruleId',
  'decision',
  'riskScore',
  'issuedAt',
  'expiresAt',
  'secretId',
  'signature',
];

/** Structure, tenant, signature (constant time) and expiry, in that order. */
export function verifyPermissionToken(
  token: unknown,
  tenantId: string,
  secretFor: (secretId: string) => Buffer | undefined,
  nowMs: number,
): PermissionVerification {
  if (typeof token !== 'object' || token === null || Array.isArray(token))
    return { valid: false, reason: 'TOKEN_MALFORMED' };
  const record = token as Record<string, unknown>;
  const keys = Object.keys(record);
  const wellFormed =
    keys.length === FIELDS.length &&
    FIELDS.every((f) => f in record) &&
    FIELDS.filter((f) => f !== 'riskScore').every((f) => typeof record[f] === 'string') &&
    typeof record.riskScore === 'number' &&
    ['allow', 'review', 'deny'].includes(record.decision as string) &&
    !Number.isNaN(Date.parse(record.expiresAt as string));
  if (!wellFormed) return { valid: false, reason: 'TOKEN_MALFORMED' };
  if (record.tenantId !== tenantId) return { valid: false, reason: 'TOKEN_TENANT_MISMATCH' };
  const secret = secretFor(record.secretId as string);
  if (!secret) return { valid: false, reason: 'SIGNATURE_VERIFICATION_FAILED' };
  const { signature, ...fields } = record as unknown as PermissionToken;
  const expected = Buffer.from(sign(secret, fields), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { valid: false, reason: 'SIGNATURE_VERIFICATION_FAILED' };
  }
  if (Date.parse(record.expiresAt as string) <= nowMs) return { valid: false, reason: 'TOKEN_EXPIRED' };
  return { valid: true };
}
