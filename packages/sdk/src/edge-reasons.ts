/**
 * The reasons {@link EdgeVerifier.verify} reports, in the order in which it checks them (the first
 * failing check is the one reported). All but the last are the contract's wire names (document 03,
 * section 9); they are also what the verifier reports to the service as `reason`.
 *
 * - `REVOCATIONS_STALE`: no successful sync within the offline window (or none yet): fail closed,
 *   whatever the token.
 * - `TOKEN_MALFORMED`: not a compact JWS with header `{alg, typ: "JWT", kid}`, or, once the
 *   signature verified, claims missing, of the wrong type, or inconsistent with each other.
 * - `KID_MISMATCH`: the kid is not in the physical key set, even after a refresh.
 * - `SIGNATURE_VERIFICATION_FAILED`: not RS256 under the kid's key, bad signature, `aud` not
 *   `service-edge-verifier`, or `iss` not the configured issuer.
 * - `TOKEN_EXPIRED`: now ≥ `service.expiresAtMs` + clock skew.
 * - `TOKEN_REVOKED`: the `jti` is on the synced revocation list.
 * - `TOKEN_NOT_YET_VALID`: `service.issuedAtMs`, `iat` or `nbf` (when present) later than now +
 *   clock skew.
 * - `TOKEN_ACTOR_MISMATCH`: `service.actorIdentity` is not the expected actor.
 * - `TOKEN_TENANT_MISMATCH`: `service.tenantId` is not the verifier's tenant.
 * - `KEY_SOURCE_UNAVAILABLE`: SDK-local and operational; only a custom `jwks` key source that
 *   throws produces it.
 *
 * @example
 * ```ts
 * import { EDGE_VERIFICATION_REASONS } from '@authority-runtime/sdk';
 *
 * EDGE_VERIFICATION_REASONS.includes('TOKEN_REVOKED'); // true
 * ```
 */
export const EDGE_VERIFICATION_REASONS = [
  'REVOCATIONS_STALE',
  'TOKEN_MALFORMED',
  'KID_MISMATCH',
  'SIGNATURE_VERIFICATION_FAILED',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'TOKEN_NOT_YET_VALID',
  'TOKEN_ACTOR_MISMATCH',
  'TOKEN_TENANT_MISMATCH',
  'KEY_SOURCE_UNAVAILABLE',
] as const;

/** One of {@link EDGE_VERIFICATION_REASONS}. */
export type EdgeVerificationReason = (typeof EDGE_VERIFICATION_REASONS)[number];
