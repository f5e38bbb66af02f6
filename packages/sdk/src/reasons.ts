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
  'TOKEN_NOT_YET_VALID',
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

/**
 * The reasons {@link verifyReceipt} reports, in the order in which it checks them (the first
 * failing check is the one reported):
 *
 * - `RECEIPT_MALFORMED`: not a receipt of version 1 or 2 (not JSON, a member missing, of the wrong
 *   type or unknown; a version-2 `inclusion` that does not list each entry's index in order).
 * - `LOG_KEY_MISSING`: a version-2 receipt, and no `logKey` to verify its checkpoint against. The
 *   checkpoint and proofs are never skipped.
 * - `TENANT_MISMATCH`: the receipt's `tenantId` is not `expectedTenantId`.
 * - `ENTRY_HASH_MISMATCH`: an entry does not hash to its `entryHash`.
 * - `ENTRY_MISMATCH`: an entry belongs to another tenant or intent, or the entries are not in chain
 *   order or not linked where their indices are consecutive.
 * - `SEAL_MISMATCH`: the seal names another tenant or intent, its `entryHashes` are not the
 *   entries' hashes in order, an entry lies after `headIndex`, or the entry at `headIndex` is not
 *   `headHash`.
 * - `SEAL_SIGNATURE_INVALID`: the seal's JWS does not verify under a pinned key of the tenant or
 *   does not state exactly the other seal fields.
 * - `CHECKPOINT_INVALID`: (version 2) the checkpoint is not a note signed by the pinned log key, is
 *   not the log of the receipt's tenant, or is not for the tree of `seal.headIndex + 1` entries.
 * - `INCLUSION_PROOF_INVALID`: (version 2) an entry's proof does not lead from its leaf hash to the
 *   checkpoint's root.
 * - `TOKEN_INVALID`: the token does not verify under a pinned key, does not name this intent and
 *   tenant, or does not say `APPROVED`; or an `APPROVED` receipt carries no token, or a token comes
 *   with another decision.
 * - `EMBEDDED_JWKS_MISMATCH`: the receipt's informational `jwks` lists a key that is not pinned,
 *   or differs from the pinned key of the same kid.
 * - `KEY_SOURCE_UNAVAILABLE`: operational, only with a {@link KeySource} that throws.
 *
 * @example
 * ```ts
 * import { RECEIPT_VERIFICATION_REASONS } from '@authority-runtime/sdk';
 *
 * RECEIPT_VERIFICATION_REASONS.includes('SEAL_SIGNATURE_INVALID'); // true
 * ```
 */
export const RECEIPT_VERIFICATION_REASONS = [
  'RECEIPT_MALFORMED',
  'LOG_KEY_MISSING',
  'TENANT_MISMATCH',
  'ENTRY_HASH_MISMATCH',
  'ENTRY_MISMATCH',
  'SEAL_MISMATCH',
  'SEAL_SIGNATURE_INVALID',
  'CHECKPOINT_INVALID',
  'INCLUSION_PROOF_INVALID',
  'TOKEN_INVALID',
  'EMBEDDED_JWKS_MISMATCH',
  'KEY_SOURCE_UNAVAILABLE',
] as const;

/** One of {@link RECEIPT_VERIFICATION_REASONS}. */
export type ReceiptVerificationReason = (typeof RECEIPT_VERIFICATION_REASONS)[number];

/**
 * The reasons {@link verifyChainExport} reports. The first four are the service's own chain
 * verification reasons (`POST /audit/verify-chain`); the last two are SDK-local:
 *
 * - `ENTRY_HASH_MISMATCH`: an entry does not hash to its `entryHash`, lacks a member or has one of
 *   the wrong type, or belongs to another tenant.
 * - `PREVIOUS_HASH_MISMATCH`: an entry's `previousHash` is not its predecessor's `entryHash` (64
 *   zeros for entry 0).
 * - `INDEX_GAP`: an entry is missing (or repeated, or out of order).
 * - `CHECKPOINT_MISMATCH`: a checkpoint's signature fails (with pinned keys), or its `entryHash` is
 *   not the export's entry at its index, or it names an entry the export does not hold.
 * - `EXPORT_MALFORMED`: a line is not JSON, or not `{"entry": {…}}` / `{"checkpoint": {…}}`.
 * - `KEY_SOURCE_UNAVAILABLE`: operational, only with a {@link KeySource} that throws.
 *
 * @example
 * ```ts
 * import { CHAIN_EXPORT_REASONS } from '@authority-runtime/sdk';
 *
 * CHAIN_EXPORT_REASONS.includes('INDEX_GAP'); // true
 * ```
 */
export const CHAIN_EXPORT_REASONS = [
  'ENTRY_HASH_MISMATCH',
  'PREVIOUS_HASH_MISMATCH',
  'INDEX_GAP',
  'CHECKPOINT_MISMATCH',
  'EXPORT_MALFORMED',
  'KEY_SOURCE_UNAVAILABLE',
] as const;

/** One of {@link CHAIN_EXPORT_REASONS}. */
export type ChainExportReason = (typeof CHAIN_EXPORT_REASONS)[number];
