/**
 * The claim set of a physical authority token (RS256 JWT, 02-physical-api.md "Authority token"),
 * claim names literally as the document lists them, the service's claims under the namespace key
 * `service`. Pure: the token id, the clock reading and the issuer come in; signing is elsewhere.
 *
 * Timing: `issuedAtMs` is the server clock, `expiresAtMs = issuedAtMs + deadlineMs`,
 * `iat = floor(issuedAtMs / 1000)` and `exp = iat + ceil(deadlineMs / 1000)`, so sub-second
 * lifetimes still give `exp > iat` and the millisecond fields keep the precise bound.
 */
import type { PhysicalDecision } from './evaluate-physical.js';
import {
  DEFAULT_ACTOR_IDENTITY_KIND,
  DEFAULT_REAL_TIME_TIER,
  type RealTimeTier,
  type SafeDefault,
} from './physical-types.js';
import { MAX_DEADLINE_MS, MIN_DEADLINE_MS, type PhysicalTokenRequest } from './request-consistency.js';

export const PHYSICAL_TOKEN_AUDIENCE = 'service-edge-verifier';
export const PHYSICAL_TOKEN_VERSION = 2;
export const PHYSICAL_TOKEN_ALGORITHM = 'RS256';

export interface PhysicalServiceClaims {
  version: typeof PHYSICAL_TOKEN_VERSION;
  oiCode: string;
  tenantId: string;
  actorIdentity: string;
  actorIdentityKind: string;
  deadlineMs: number;
  issuedAtMs: number;
  expiresAtMs: number;
  safeDefault: SafeDefault;
  safetyBit: boolean;
  safetyCitations: string[];
  dagNodeId: string;
  realTimeTier: RealTimeTier;
  physicalStateRef: string | null;
  operatorTicketId: string | null;
}

export interface PhysicalTokenClaims {
  iss: string;
  sub: string;
  aud: typeof PHYSICAL_TOKEN_AUDIENCE;
  iat: number;
  exp: number;
  jti: string;
  service: PhysicalServiceClaims;
}

export interface PhysicalClaimsInput {
  /** `iss`: the service's public base address (document 02 writes `{base_url}`). */
  issuer: string;
  tenantId: string;
  /** The token id, also the audit lookup key (a UUID minted by the caller). */
  jti: string;
  /** Server clock, integer ms since the epoch. */
  nowMs: number;
  /** An ALLOW decision for this request. */
  decision: PhysicalDecision;
  request: PhysicalTokenRequest;
  /** The roster's `actorIdentityKind`; default `ieee-802-1ar-devid`. */
  actorIdentityKind?: string;
  /** The stored snapshot of `physicalState`, or null when none was submitted. */
  physicalStateRef: string | null;
}

export function buildPhysicalClaims(input: PhysicalClaimsInput): PhysicalTokenClaims {
  const { decision, request, nowMs } = input;
  if (decision.decision !== 'ALLOW')
    throw new Error(`tokens are minted only on ALLOW (got ${decision.decision})`);
  const deadlineMs = request.dagNode.deadlineMs;
  if (!Number.isSafeInteger(deadlineMs) || deadlineMs < MIN_DEADLINE_MS || deadlineMs > MAX_DEADLINE_MS) {
    throw new Error('deadlineMs must be checked with checkRequestConsistency before minting');
  }
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) throw new Error('nowMs must be a non-negative integer');
  const iat = Math.floor(nowMs / 1000);
  const actorIdentity = request.claims.actorIdentity;
  if (request.intent.structuredGoal.actor.identifier !== actorIdentity) {
    throw new Error('the goal actor must be claims.actorIdentity (checkRequestConsistency)');
  }
  return {
    iss: input.issuer,
    sub: actorIdentity,
    aud: PHYSICAL_TOKEN_AUDIENCE,
    iat,
    exp: iat + Math.ceil(deadlineMs / 1000),
    jti: input.jti,
    service: {
      version: PHYSICAL_TOKEN_VERSION,
      oiCode: decision.oiCode,
      tenantId: input.tenantId,
      actorIdentity,
      actorIdentityKind: input.actorIdentityKind ?? DEFAULT_ACTOR_IDENTITY_KIND,
      deadlineMs,
      issuedAtMs: nowMs,
      expiresAtMs: nowMs + deadlineMs,
      safeDefault: request.dagNode.safeDefault,
      safetyBit: decision.safetyBit,
      safetyCitations: [...decision.safetyCitations],
      dagNodeId: request.dagNode.nodeId,
      realTimeTier: request.dagNode.realTimeTier ?? DEFAULT_REAL_TIME_TIER,
      physicalStateRef: input.physicalStateRef,
      operatorTicketId: decision.operatorTicketId,
    },
  };
}

/** The JWS protected header of a physical token. */
export function physicalTokenHeader(kid: string): {
  alg: typeof PHYSICAL_TOKEN_ALGORITHM;
  typ: 'JWT';
  kid: string;
} {
  return { alg: PHYSICAL_TOKEN_ALGORITHM, typ: 'JWT', kid };
}
