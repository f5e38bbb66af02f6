/**
 * The verification reasons of the contract (document 03, section 5), in the order in which the
 * verifier checks them. The first failing check is the one reported. These strings are wire names:
 * the service's `POST /authority/tokens/consume` and adapters report the same values.
 *
 * @example
 * ```ts
 * import { TOKEN_VERIFICATION_REASONS } from '@authority-runtime/sdk';
 *
 * TOKEN_VERIFICATION_REASONS[0]; // 'TOKEN_MALFORMED'
 * TOKEN_VERIFICATION_REASONS.includes('TOKEN_EXPIRED'); // true
 * ```
 */
export const TOKEN_VERIFICATION_REASONS = [
  'TOKEN_MALFORMED',
  'KID_MISMATCH',
  'SIGNATURE_VERIFICATION_FAILED',
  'TOKEN_TTL_EXCEEDS_LIMIT',
  'TOKEN_EXPIRED',
  'TOKEN_DECISION_INVALID',
  'TOKEN_TENANT_MISMATCH',
  'TOKEN_ADAPTER_MISMATCH',
  'TOKEN_TARGET_MISMATCH',
  'NONCE_ALREADY_CONSUMED',
] as const;

/** One of the contract's verification reasons, see {@link TOKEN_VERIFICATION_REASONS}. */
export type TokenVerificationReason = (typeof TOKEN_VERIFICATION_REASONS)[number];

/**
 * Reasons the verifier can report besides the contract's ordered list:
 *
 * - `TENANT_KILL_SWITCH`: reported by the service's consume endpoint (through
 *   {@link RemoteNonceStore}) while the tenant's kill switch is on. A wire name of the contract.
 * - `KEY_SOURCE_UNAVAILABLE`: SDK-local. The key source could not produce any key set (for example
 *   the JWKS endpoint was unreachable and nothing was cached yet). Transient; retrying later may
 *   succeed. Never a sign that the token is bad.
 * - `NONCE_STORE_UNAVAILABLE`: SDK-local. Every other check passed but the nonce store could not
 *   confirm that this is the nonce's first use (network error, timeout, unexpected answer, store
 *   full). The verifier fails closed: the token is not accepted.
 *
 * @example
 * ```ts
 * import { OPERATIONAL_FAILURE_REASONS } from '@authority-runtime/sdk';
 *
 * OPERATIONAL_FAILURE_REASONS.includes('NONCE_STORE_UNAVAILABLE'); // true
 * ```
 */
export const OPERATIONAL_FAILURE_REASONS = [
  'TENANT_KILL_SWITCH',
  'KEY_SOURCE_UNAVAILABLE',
  'NONCE_STORE_UNAVAILABLE',
] as const;

/** One of {@link OPERATIONAL_FAILURE_REASONS}. */
export type OperationalFailureReason = (typeof OPERATIONAL_FAILURE_REASONS)[number];

/** Every reason a failed verification can carry. */
export type VerificationFailureReason = TokenVerificationReason | OperationalFailureReason;

const ALL_REASONS: ReadonlySet<string> = new Set<string>([
  ...TOKEN_VERIFICATION_REASONS,
  ...OPERATIONAL_FAILURE_REASONS,
]);

/**
 * Narrows an arbitrary string (for example a reason received from the service) to a known
 * verification failure reason.
 *
 * @example
 * ```ts
 * import { isVerificationFailureReason } from '@authority-runtime/sdk';
 *
 * isVerificationFailureReason('TOKEN_EXPIRED'); // true
 * isVerificationFailureReason('SOMETHING_ELSE'); // false
 * ```
 */
export function isVerificationFailureReason(value: unknown): value is VerificationFailureReason {
  return typeof value === 'string' && ALL_REASONS.has(value);
}
