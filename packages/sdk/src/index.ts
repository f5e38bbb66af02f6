export type { JWK } from 'jose';
export { type AuditEntry, auditEntryHash, GENESIS_HASH } from './audit-entry.js';
export {
  CHECKPOINT_TYP,
  CHECKPOINT_WINDOW,
  type ChainExportInvalid,
  type ChainExportValid,
  type ChainExportVerification,
  type Checkpoint,
  PROGRESS_INTERVAL,
  type VerifyChainExportOptions,
  verifyChainExport,
} from './chain-export.js';
export { KeySourceError, NonceStoreError } from './errors.js';
export {
  type JwksDocument,
  type KeySource,
  type PinnedKeys,
  type RemoteJwksOptions,
  remoteJwks,
  staticJwks,
} from './jwks.js';
export { SUPPORTED_ALGORITHMS, type SupportedAlgorithm } from './keys.js';
export { type ParsedKid, parseKid } from './kid.js';
export {
  InMemoryNonceStore,
  type InMemoryNonceStoreOptions,
  type NonceConsumeContext,
  type NonceStore,
  RemoteNonceStore,
  type RemoteNonceStoreOptions,
} from './nonce-store.js';
export {
  CHAIN_EXPORT_REASONS,
  type ChainExportReason,
  isVerificationFailureReason,
  OPERATIONAL_FAILURE_REASONS,
  type OperationalFailureReason,
  RECEIPT_VERIFICATION_REASONS,
  type ReceiptVerificationReason,
  TOKEN_VERIFICATION_REASONS,
  type TokenVerificationReason,
  type VerificationFailureReason,
} from './reasons.js';
export {
  RECEIPT_SEAL_TYP,
  type Receipt,
  type ReceiptInvalid,
  type ReceiptSeal,
  type ReceiptValid,
  type ReceiptVerification,
  type VerifyReceiptOptions,
  verifyReceipt,
} from './receipt.js';
export {
  AUTHORITY_ISSUER,
  type AuthorityTokenClaims,
  type AuthorityTokenInvalid,
  type AuthorityTokenValid,
  type AuthorityTokenVerification,
  DEFAULT_CLOCK_SKEW_SECONDS,
  type ExpectedTokenContext,
  MAX_TOKEN_LENGTH,
  MAX_TOKEN_TTL_SECONDS,
  type VerifyAuthorityTokenOptions,
  verifyAuthorityToken,
} from './verify.js';
