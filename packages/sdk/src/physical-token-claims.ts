import { isRecord } from './keys.js';
import {
  EDGE_VERIFIER_AUDIENCE,
  REAL_TIME_TIERS,
  type RealTimeTier,
  SAFE_DEFAULTS,
  type SafeDefault,
} from './wire/constants.js';
import type { PhysicalServiceClaims, PhysicalTokenClaims } from './wire/tokens.js';

export type { PhysicalServiceClaims, PhysicalTokenClaims };
export { EDGE_VERIFIER_AUDIENCE, REAL_TIME_TIERS, type RealTimeTier, SAFE_DEFAULTS, type SafeDefault };

/** The value of the claim `service.version` of a physical authority token. */
export const PHYSICAL_TOKEN_VERSION = 2;

/**
 * Longest lifetime a physical token may have, `service.deadlineMs`, in ms (the contract bounds
 * `dagNode.deadlineMs` to 1..300,000). The edge verifier relies on it to forget old revocations.
 */
export const MAX_PHYSICAL_TOKEN_LIFETIME_MS = 300_000;

const OI_CODE = /^OI-[0-9]{3,4}$/;
const SAFETY_CITATION = /^OI-29[0-9]{2}$/;

/**
 * @internal
 * Type-checks the decoded payload of a physical authority token, literally as document 02 lists
 * the claims. Returns the claims, or why they are malformed. Values that depend on the verifier's
 * context (audience, tenant, actor, expiry, issuer) are left to the caller, except that `aud` must
 * be a string here (its value is checked by the caller), and the claims must agree with each other:
 * `sub` = `service.actorIdentity`, `service.expiresAtMs` = `issuedAtMs + deadlineMs` and
 * `exp` = `iat + ceil(deadlineMs / 1000)`.
 *
 * @example
 * ```ts
 * const claims = decodePhysicalClaims(JSON.parse(payloadText));
 * if (typeof claims === 'string') return fail('TOKEN_MALFORMED', claims);
 * claims.service.tenantId;
 * ```
 */
export function decodePhysicalClaims(payload: unknown): PhysicalTokenClaims | string {
  if (!isRecord(payload)) return 'the payload is not a JSON object';
  for (const name of ['iss', 'sub', 'jti'] as const) {
    if (!nonEmptyString(payload[name])) return `claim ${name} is missing or not a non-empty string`;
  }
  if (typeof payload.aud !== 'string') return 'claim aud is missing or not a string';
  for (const name of ['iat', 'exp'] as const) {
    if (!Number.isSafeInteger(payload[name])) return `claim ${name} is missing or not an integer`;
  }
  if (payload.nbf !== undefined && !Number.isSafeInteger(payload.nbf)) return 'claim nbf is not an integer';
  const service = payload.service;
  if (!isRecord(service)) return 'claim service is missing or not an object';
  const problem = serviceProblem(service);
  if (problem !== undefined) return `claim service.${problem}`;
  const claims = payload as unknown as PhysicalTokenClaims;
  const s = claims.service;
  if (claims.sub !== s.actorIdentity) return 'claim sub is not service.actorIdentity';
  if (s.expiresAtMs !== s.issuedAtMs + s.deadlineMs) {
    return 'claim service.expiresAtMs is not issuedAtMs + deadlineMs';
  }
  if (claims.exp !== claims.iat + Math.ceil(s.deadlineMs / 1000)) {
    return 'claim exp is not iat + ceil(deadlineMs / 1000)';
  }
  return claims;
}

/** The first `service.*` member that is missing or of the wrong type or range, described. */
function serviceProblem(service: Record<string, unknown>): string | undefined {
  if (service.version !== PHYSICAL_TOKEN_VERSION) return `version is not ${PHYSICAL_TOKEN_VERSION}`;
  if (typeof service.oiCode !== 'string' || !OI_CODE.test(service.oiCode)) return 'oiCode is not OI-NNN(N)';
  for (const name of ['tenantId', 'actorIdentity', 'actorIdentityKind', 'dagNodeId'] as const) {
    if (!nonEmptyString(service[name])) return `${name} is missing or not a non-empty string`;
  }
  const { deadlineMs } = service;
  if (!Number.isSafeInteger(deadlineMs) || (deadlineMs as number) < 1) {
    return 'deadlineMs is not a positive integer';
  }
  if ((deadlineMs as number) > MAX_PHYSICAL_TOKEN_LIFETIME_MS) {
    return `deadlineMs exceeds ${MAX_PHYSICAL_TOKEN_LIFETIME_MS}`;
  }
  for (const name of ['issuedAtMs', 'expiresAtMs'] as const) {
    const value = service[name];
    if (!Number.isSafeInteger(value) || (value as number) < 0) return `${name} is not an integer >= 0`;
  }
  if (!(SAFE_DEFAULTS as readonly unknown[]).includes(service.safeDefault)) return 'safeDefault is unknown';
  if (typeof service.safetyBit !== 'boolean') return 'safetyBit is not a boolean';
  const citations = service.safetyCitations;
  if (!Array.isArray(citations)) return 'safetyCitations is not an array';
  if (!citations.every((c) => typeof c === 'string' && SAFETY_CITATION.test(c))) {
    return 'safetyCitations holds a value that is not OI-29NN';
  }
  if (!(REAL_TIME_TIERS as readonly unknown[]).includes(service.realTimeTier))
    return 'realTimeTier is unknown';
  for (const name of ['physicalStateRef', 'operatorTicketId'] as const) {
    const value = service[name];
    if (value !== null && !nonEmptyString(value)) return `${name} is neither null nor a non-empty string`;
  }
  return undefined;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
