import { type JwsSigner, signCompact } from '../crypto/jws.js';
import { randomNonce } from '../crypto/nonce.js';
import { withSpan } from '../foundation/tracing.js';

export const TOKEN_ISSUER = 'service-authority';
export const MAX_TOKEN_TTL_SECONDS = 300;

/** Claims of an Authority Decision Token, in the order the intent document lists them. */
export interface DecisionTokenClaims {
  intentId: string;
  tenantId: string;
  adapterId: string;
  adapterTarget: string;
  targetSystem: string;
  proposedAction: string;
  decision: 'APPROVED';
  issuedAt: string;
  expiresAt: string;
  nonce: string;
  iss: typeof TOKEN_ISSUER;
  aud: string;
  iat: number;
  exp: number;
}

export interface DecisionTokenRequest {
  intentId: string;
  tenantId: string;
  /** The connector serving the target, or "external" (then adapterTarget = targetSystem). */
  adapterId: string;
  adapterTarget: string;
  targetSystem: string;
  proposedAction: string;
  ttlSeconds?: number;
}

/**
 * The claims of a new token. Pure apart from the nonce (128 random bits). `issuedAt`/`expiresAt`
 * equal `iat`/`exp`, so the ISO forms carry whole seconds.
 */
export function decisionTokenClaims(request: DecisionTokenRequest, nowMs: number): DecisionTokenClaims {
  const ttl = Math.min(request.ttlSeconds ?? MAX_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS);
  if (!Number.isInteger(ttl) || ttl < 1) throw new Error('token TTL must be a positive integer of seconds');
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + ttl;
  return {
    intentId: request.intentId,
    tenantId: request.tenantId,
    adapterId: request.adapterId,
    adapterTarget: request.adapterTarget,
    targetSystem: request.targetSystem,
    proposedAction: request.proposedAction,
    decision: 'APPROVED',
    issuedAt: new Date(iat * 1000).toISOString(),
    expiresAt: new Date(exp * 1000).toISOString(),
    nonce: randomNonce(),
    iss: TOKEN_ISSUER,
    aud: request.adapterId,
    iat,
    exp,
  };
}

export interface MintedToken {
  token: string;
  claims: DecisionTokenClaims;
  kid: string;
}

/** Signs the claims with the tenant's ACTIVE key: header `{alg, typ: "JWT", kid}`. */
export async function mintDecisionToken(
  signer: JwsSigner,
  request: DecisionTokenRequest,
  nowMs: number,
): Promise<MintedToken> {
  const claims = decisionTokenClaims(request, nowMs);
  const token = await withSpan('sign decision_token', { attributes: { 'authority.kid': signer.kid } }, () =>
    signCompact(signer, JSON.stringify(claims)),
  );
  return { token, claims, kid: signer.kid };
}
