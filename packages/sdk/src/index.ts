export type { JWK } from 'jose';
export { KeySourceError, NonceStoreError } from './errors.js';
export { type JwksDocument, type KeySource, type RemoteJwksOptions, remoteJwks, staticJwks } from './jwks.js';
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
  isVerificationFailureReason,
  OPERATIONAL_FAILURE_REASONS,
  type OperationalFailureReason,
  TOKEN_VERIFICATION_REASONS,
  type TokenVerificationReason,
  type VerificationFailureReason,
} from './reasons.js';
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
