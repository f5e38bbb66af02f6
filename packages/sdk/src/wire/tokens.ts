import { type Static, Type } from 'typebox';
import { TOKEN_VERIFICATION_REASONS } from '../reasons.js';
import { Closed, Nullable } from './common.js';
import {
  AUTHORITY_ISSUER,
  EDGE_VERIFIER_AUDIENCE,
  OI_CODE_PATTERN,
  REAL_TIME_TIERS,
  SAFE_DEFAULTS,
} from './constants.js';

/** Token claims of both surfaces (contract §5, §9) and `POST /authority/tokens/consume`. */

/** The claims of an Authority Decision Token, exactly as the intent document lists them, plus the JWT ones. */
export const DecisionTokenClaims = Type.Object({
  intentId: Type.String(),
  tenantId: Type.String(),
  adapterId: Type.String({ description: 'The connector serving the target, or "external". Equals aud.' }),
  adapterTarget: Type.String({ description: 'The connector target, or targetSystem for "external"' }),
  targetSystem: Type.String({ description: '<github_owner>/<github_repo>' }),
  proposedAction: Type.String(),
  decision: Type.Literal('APPROVED'),
  issuedAt: Type.String({ description: 'ISO 8601 with milliseconds; equals iat (informational)' }),
  expiresAt: Type.String({ description: 'ISO 8601 with milliseconds; equals exp (informational)' }),
  nonce: Type.String({ description: '128 random bits, base64url; consumed once' }),
  iss: Type.Literal(AUTHORITY_ISSUER),
  aud: Type.String(),
  iat: Type.Number({
    description:
      'Unix seconds: an integer in the tokens the service signs; any finite number verifies (RFC 7519 NumericDate)',
  }),
  exp: Type.Number({ description: 'Unix seconds, like iat' }),
  nbf: Type.Optional(
    Type.Number({
      description: 'Unix seconds; the service does not set it, a token that has it is not valid before it',
    }),
  ),
});
export type DecisionTokenClaims = Static<typeof DecisionTokenClaims>;

/** The body of `POST /authority/tokens/consume`: the verifying adapter's identity and the token. */
export const TokenConsumeRequest = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      description:
        'Bounded by the body limit only: a token longer than the verifier takes (64 KiB) is answered 200 {valid: false, reason: "TOKEN_MALFORMED"}, like every token it cannot read',
    }),
    adapterId: Type.String({ minLength: 1, maxLength: 200 }),
    targetSystem: Type.String({ minLength: 1, maxLength: 500 }),
  },
  Closed,
);
export type TokenConsumeRequest = Static<typeof TokenConsumeRequest>;

/** Always 200: the claims when the token verified and its nonce was consumed now, else the reason. */
export const TokenConsumeResult = Type.Union([
  Type.Object({ valid: Type.Literal(true), claims: DecisionTokenClaims }),
  Type.Object({
    valid: Type.Literal(false),
    reason: Type.Union([Type.Enum(TOKEN_VERIFICATION_REASONS), Type.Literal('TENANT_KILL_SWITCH')]),
  }),
]);
export type TokenConsumeResult = Static<typeof TokenConsumeResult>;

/** The namespaced claims of a physical authority token (the JWT claim `service`). */
export const PhysicalServiceClaims = Type.Object({
  version: Type.Literal(2),
  oiCode: Type.String({ pattern: OI_CODE_PATTERN }),
  tenantId: Type.String({ description: 'The physical signer is shared by all tenants: check it' }),
  actorIdentity: Type.String({ description: 'Equals sub' }),
  actorIdentityKind: Type.String({ description: 'e.g. ieee-802-1ar-devid' }),
  deadlineMs: Type.Integer({ minimum: 1, maximum: 300_000, description: 'Lifetime in ms' }),
  issuedAtMs: Type.Integer({ minimum: 0 }),
  expiresAtMs: Type.Integer({ minimum: 0, description: 'issuedAtMs + deadlineMs' }),
  safeDefault: Type.Enum(SAFE_DEFAULTS),
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String({ description: 'OI-29NN' })),
  dagNodeId: Type.String(),
  realTimeTier: Type.Enum(REAL_TIME_TIERS),
  physicalStateRef: Nullable(Type.String()),
  operatorTicketId: Nullable(Type.String()),
});
export type PhysicalServiceClaims = Static<typeof PhysicalServiceClaims>;

/** The claims of a physical authority token (RS256, for the edge verifier). */
export const PhysicalTokenClaims = Type.Object({
  iss: Type.String({ description: 'The service (PUBLIC_BASE_URL)' }),
  sub: Type.String({ description: 'The actor identity' }),
  aud: Type.Literal(EDGE_VERIFIER_AUDIENCE),
  iat: Type.Integer({ description: 'Unix seconds' }),
  exp: Type.Integer({ description: 'Unix seconds; iat + ceil(deadlineMs / 1000)' }),
  nbf: Type.Optional(
    Type.Integer({
      description: 'Unix seconds; the service does not set it, a token that has it is not valid before it',
    }),
  ),
  jti: Type.String({ description: 'The key of its audit entry and of its revocation' }),
  service: PhysicalServiceClaims,
});
export type PhysicalTokenClaims = Static<typeof PhysicalTokenClaims>;
