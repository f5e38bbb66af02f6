import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime } from './common.js';
import { EFFECTS, GATES, OI_CODE_PATTERN, PERMISSION_TOKEN_DECISIONS } from './constants.js';
import {
  Actor,
  Args,
  ExplanationEntry,
  MatchedRule,
  ProposedAction,
  RiskContext,
  TargetSystem,
} from './intent.js';

/** `POST /authority/evaluate` and the Authority Permission Token (contract §4.9). */

export const EvaluateRequest = Type.Object(
  {
    actor: Actor,
    targetSystem: TargetSystem,
    proposedAction: ProposedAction,
    args: Type.Optional(Args),
    riskContext: RiskContext,
    oiCode: Type.Optional(
      Type.String({ pattern: OI_CODE_PATTERN, description: 'A second pass that can only raise severity' }),
    ),
  },
  Closed,
);
export type EvaluateRequest = Static<typeof EvaluateRequest>;

/** The HMAC-signed permission token, the JSON object itself. */
export const PermissionToken = Type.Object({
  tokenId: Type.String(),
  tenantId: Type.String(),
  intentId: Type.String({ description: 'The evaluationId' }),
  policyPack: Type.String({ description: 'Pack id of the deciding rule, or custom' }),
  ruleId: Type.String(),
  decision: Type.Enum(PERMISSION_TOKEN_DECISIONS),
  riskScore: Type.Number(),
  issuedAt: IsoDateTime,
  expiresAt: IsoDateTime,
  secretId: Type.String(),
  signature: Type.String({ description: 'base64url HMAC-SHA256 over the JCS of every other field' }),
});
export type PermissionToken = Static<typeof PermissionToken>;

export const EvaluateResponse = Type.Object({
  evaluationId: Type.String(),
  decision: Type.Enum(EFFECTS),
  riskScore: Type.Number(),
  matchedRules: Type.Array(MatchedRule),
  decidingRule: MatchedRule,
  rationale: Type.Array(Type.String()),
  gateTrace: Type.Array(Type.Enum(GATES)),
  explanation: Type.Array(ExplanationEntry),
  evaluatedAt: IsoDateTime,
  permissionToken: PermissionToken,
});
export type EvaluateResponse = Static<typeof EvaluateResponse>;

/** `POST /authority/permission-tokens/verify`: any value is accepted and judged. */
export const PermissionTokenVerifyRequest = Type.Object(
  { token: Type.Unknown({ description: 'A PermissionToken object as evaluate answered it' }) },
  Closed,
);
export type PermissionTokenVerifyRequest = Static<typeof PermissionTokenVerifyRequest>;

export const PermissionTokenVerification = Type.Object({
  valid: Type.Boolean(),
  reason: Type.Optional(Type.String()),
});
export type PermissionTokenVerification = Static<typeof PermissionTokenVerification>;
