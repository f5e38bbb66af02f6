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
export {
  AuthorityApiError,
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  RETRYABLE_STATUSES,
} from './client/api-error.js';
export type { ApprovalsResource, TokensResource } from './client/approvals.js';
export type { AuditResource } from './client/audit.js';
export { AuthorityClient, type AuthorityClientOptions } from './client/authority-client.js';
export { type BackoffSettings, DEFAULT_BACKOFF } from './client/backoff.js';
export type { ConnectorsResource } from './client/connectors.js';
export type {
  FetchedToken,
  IntentInput,
  IntentSubmission,
  IntentsResource,
  SubmitOptions,
  SubmittedIntent,
  WaitOptions,
} from './client/intents.js';
export type { KeysResource } from './client/keys.js';
export { PagedList } from './client/paged-list.js';
export type { PhysicalDecision, PhysicalDenial, PhysicalResource } from './client/physical.js';
export type { PoliciesResource, TenantResource, ThresholdsResource } from './client/policies.js';
export { type IdempotentCallOptions, newIdempotencyKey } from './client/resource.js';
export type { CallOptions } from './client/transport.js';
export type { WebhooksResource } from './client/webhooks.js';
export { EdgeServiceError } from './edge-http.js';
export { EDGE_VERIFICATION_REASONS, type EdgeVerificationReason } from './edge-reasons.js';
export type { EdgeReportFlush } from './edge-reporter.js';
export {
  type EdgeSyncResult,
  type EdgeTokenAccepted,
  type EdgeTokenRejected,
  type EdgeVerification,
  EdgeVerifier,
  type EdgeVerifierStatus,
  type EdgeVerifyOptions,
} from './edge-verifier.js';
export { type EdgeVerifierOptions, MAX_REPORT_BATCH_SIZE } from './edge-verifier-options.js';
export { KeySourceError, NonceStoreError } from './errors.js';
export {
  type JwksDocument,
  type KeySource,
  type PinnedKeys,
  type RemoteJwksOptions,
  type RemoteKeySource,
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
  EDGE_VERIFIER_AUDIENCE,
  MAX_PHYSICAL_TOKEN_LIFETIME_MS,
  PHYSICAL_TOKEN_VERSION,
  type PhysicalServiceClaims,
  type PhysicalTokenClaims,
  REAL_TIME_TIERS,
  type RealTimeTier,
  SAFE_DEFAULTS,
  type SafeDefault,
} from './physical-token-claims.js';
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
  type AnyReceipt,
  RECEIPT_SEAL_TYP,
  type Receipt,
  type ReceiptInclusion,
  type ReceiptInvalid,
  type ReceiptSeal,
  type ReceiptV1,
  type ReceiptValid,
  type ReceiptVerification,
  type VerifyReceiptOptions,
  verifyReceipt,
} from './receipt.js';
export { REVOCATIONS_PAGE_LIMIT, type Revocation } from './revocation-list.js';
export * from './transparency/index.js';
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
export {
  type VerifyWebhookOptions,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_VERIFICATION_REASONS,
  type WebhookPayload,
  type WebhookVerification,
  type WebhookVerificationReason,
} from './webhook.js';
// The wire contract: every constant as a value, every schema's static type (the schemas themselves
// are in `@authority-runtime/sdk/wire`, which loads the schema library).
export * from './wire/constants.js';
export type * from './wire/index.js';
