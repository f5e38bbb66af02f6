import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, JsonObject, Nullable } from './common.js';
import {
  ACTOR_TYPES,
  APPROVAL_QUEUES,
  APPROVAL_STATUSES,
  EFFECTS,
  EXECUTION_FAILURE_REASONS,
  GATES,
  GITHUB_OWNER_PATTERN,
  GITHUB_REPO_PATTERN,
  INTENT_OUTCOMES,
  INTENT_STATUSES,
  OPERATION_TYPES,
  OPERATORS,
  TARGET_SYSTEM_PATTERN,
} from './constants.js';

/** The intent surface: the IntentRequest (contract §4.1), the decision record (§4.6) and intent reads (§4.7). */

export const Actor = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Enum(ACTOR_TYPES),
  },
  Closed,
);
export type Actor = Static<typeof Actor>;

export const GithubContext = Type.Object(
  {
    owner: Type.String({ pattern: GITHUB_OWNER_PATTERN }),
    repo: Type.String({ pattern: GITHUB_REPO_PATTERN }),
    ref: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    pullRequest: Type.Optional(Type.Integer({ minimum: 1 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  Closed,
);
export type GithubContext = Static<typeof GithubContext>;

export const RiskContext = Type.Object(
  {
    baseRiskScore: Type.Number({ minimum: 0, maximum: 100 }),
    policyCompliant: Type.Optional(Type.Boolean({ description: 'Default true; echoed in the decision' })),
    requiresPrivilegedAccess: Type.Optional(Type.Boolean({ description: 'Default false' })),
    touchesProduction: Type.Optional(Type.Boolean({ description: 'Default false' })),
    containsSensitiveData: Type.Optional(Type.Boolean({ description: 'Default false' })),
    github: Type.Optional(GithubContext),
  },
  Closed,
);
export type RiskContext = Static<typeof RiskContext>;

/** Any JSON object; its content is free. */
export const Args = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Raw structural arguments of the action (≤ 64 KiB as UTF-8 JSON, depth ≤ 16)',
});

export const TargetSystem = Type.String({ pattern: TARGET_SYSTEM_PATTERN, description: 'GitHub owner/repo' });

export const ProposedAction = Type.String({ minLength: 1, maxLength: 4000 });

/** The body of `POST /intent`. */
export const IntentRequest = Type.Object(
  {
    tenantId: Type.String({ minLength: 1, maxLength: 100 }),
    actor: Actor,
    targetSystem: TargetSystem,
    proposedAction: ProposedAction,
    args: Type.Optional(Args),
    riskContext: RiskContext,
  },
  Closed,
);
export type IntentRequest = Static<typeof IntentRequest>;

/** A rule or signal that matched: `signal:*` ids are pseudo-rules (contract §4.5). */
export const MatchedRule = Type.Object({
  id: Type.String(),
  effect: Type.Enum(EFFECTS),
  priority: Type.Integer({ description: '0 for signals, 1 for the catastrophic floor, 2..10000 for rules' }),
});
export type MatchedRule = Static<typeof MatchedRule>;

/** Why a rule that did not match failed: its first failing binding, or its first failing condition. */
export const ExplanationEntry = Type.Object({
  ruleId: Type.String(),
  effect: Type.Enum(EFFECTS),
  failed: Type.Union([
    Type.Object({ kind: Type.Literal('binding'), binding: Type.String() }),
    Type.Object({
      kind: Type.Literal('condition'),
      path: Type.String(),
      op: Type.Enum(OPERATORS),
      reason: Type.String(),
    }),
    Type.Object({
      kind: Type.Literal('inactive'),
      reason: Type.String({ description: '`inactive until <activeFrom>` or `inactive since <activeUntil>`' }),
      until: Type.Optional(Type.String({ description: 'Before its window: the rule is active from then' })),
      since: Type.Optional(
        Type.String({ description: 'After its window: the rule stopped being active then' }),
      ),
    }),
  ]),
});
export type ExplanationEntry = Static<typeof ExplanationEntry>;

/** The primary interpretation of `proposedAction` (contract §4.2). */
export const Hypothesis = Type.Object({
  oiCode: Type.String(),
  operationType: Type.Enum(OPERATION_TYPES),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
});
export type Hypothesis = Static<typeof Hypothesis>;

/** The decision record of an intent (contract §4.6). */
export const AuthorityDecision = Type.Object({
  decision: Type.Enum(INTENT_OUTCOMES),
  riskScore: Type.Number({ minimum: 0, maximum: 100 }),
  policyCompliant: Type.Boolean(),
  rationale: Type.Array(Type.String(), { description: 'One human-readable line per contributing fact' }),
  gateTrace: Type.Array(Type.Enum(GATES), { description: 'Every gate evaluated, in order' }),
  matchedRules: Type.Array(MatchedRule),
  decidingRule: MatchedRule,
  intent: Hypothesis,
  explanation: Type.Optional(
    Type.Array(ExplanationEntry, { description: 'With ?explain=true: why each other rule did not match' }),
  ),
});
export type AuthorityDecision = Static<typeof AuthorityDecision>;

/**
 * `execution` of an intent (contract §4.6, §8): skipped (DENIED, ESCALATED), not configured (no
 * autoExecute connector serves the target), pending (while the connector runs), or the outcome of a
 * connector that ran: executed, failed (with a reason), rejected (the token verification reason).
 */
export const Execution = Type.Union([
  Type.Object({ attempted: Type.Literal(false), status: Type.Literal('skipped') }),
  Type.Object({ attempted: Type.Literal(false), status: Type.Literal('not_configured') }),
  Type.Object({ attempted: Type.Literal(true), status: Type.Literal('pending'), adapterId: Type.String() }),
  Type.Object({
    attempted: Type.Literal(true),
    status: Type.Literal('executed'),
    adapterId: Type.String(),
    result: JsonObject,
  }),
  Type.Object({
    attempted: Type.Literal(true),
    status: Type.Literal('failed'),
    adapterId: Type.String(),
    reason: Type.Enum(EXECUTION_FAILURE_REASONS),
    result: Type.Optional(JsonObject),
  }),
  Type.Object({
    attempted: Type.Literal(true),
    status: Type.Literal('rejected'),
    adapterId: Type.String(),
    reason: Type.String({ description: 'The token verification reason' }),
  }),
]);
export type Execution = Static<typeof Execution>;

/** The state of an escalation: its queue, how many approvals it needs and has, and its expiry. */
export const ApprovalState = Type.Object({
  queue: Type.Enum(APPROVAL_QUEUES),
  status: Type.Enum(APPROVAL_STATUSES),
  requiredApprovals: Type.Integer({ minimum: 1, maximum: 2 }),
  approvalsReceived: Type.Optional(Type.Integer({ minimum: 0 })),
  expiresAt: IsoDateTime,
});
export type ApprovalState = Static<typeof ApprovalState>;

/** `audit` of an intent response: the entries this request appended and the chain's latest hash. */
export const AuditSummary = Type.Object({ entriesWritten: Type.Integer(), latestHash: Type.String() });

/**
 * The answer of `POST /intent` for every decision: 200 APPROVED (with `authorityDecisionToken`),
 * 202 ESCALATED (with `escalationId`, `approvalUrl` and `approval`), 403 DENIED.
 */
export const IntentResponse = Type.Object({
  intentId: Type.String(),
  correlationId: Type.String(),
  authorityDecision: AuthorityDecision,
  audit: AuditSummary,
  execution: Execution,
  authorityDecisionToken: Type.Optional(Type.String({ description: 'APPROVED only: the compact JWS' })),
  escalationId: Type.Optional(Type.String({ description: 'ESCALATED only' })),
  approvalUrl: Type.Optional(
    Type.String({
      description: 'ESCALATED only: AUTHORITY_APPROVAL_URL + "/" + escalationId, the console page',
    }),
  ),
  approval: Type.Optional(ApprovalState),
});
export type IntentResponse = Static<typeof IntentResponse>;

/** The answer of `POST /intent/:id/token`: the intent response shape, decision APPROVED, with the token. */
export const IntentTokenResponse = Type.Object({
  intentId: Type.String(),
  correlationId: Type.String(),
  authorityDecision: AuthorityDecision,
  audit: AuditSummary,
  execution: Execution,
  authorityDecisionToken: Type.String(),
});
export type IntentTokenResponse = Static<typeof IntentTokenResponse>;

/** An intent as `GET /intent/:id` and `GET /intents` show it (never its token). */
export const IntentView = Type.Object({
  intentId: Type.String(),
  correlationId: Type.String(),
  tenantId: Type.String(),
  request: IntentRequest,
  status: Type.Enum(INTENT_STATUSES),
  authorityDecision: AuthorityDecision,
  hypotheses: Type.Array(Hypothesis, { description: 'The primary interpretation first, then alternates' }),
  approval: Type.Optional(
    Type.Object({
      ...ApprovalState.properties,
      escalationId: Nullable(Type.String()),
    }),
  ),
  execution: Execution,
  tokenIssued: Type.Boolean(),
  auditEntries: Type.Optional(
    Type.Array(Type.Object({ index: Type.Integer(), eventType: Type.String(), entryHash: Type.String() }), {
      description: 'GET /intent/:id only',
    }),
  ),
  createdAt: IsoDateTime,
});
export type IntentView = Static<typeof IntentView>;

/** The query of `GET /intents`. */
export const IntentListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(INTENT_STATUSES)),
    actorId: Type.Optional(Type.String({ maxLength: 200 })),
    targetSystem: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  Closed,
);
export type IntentListQuery = Static<typeof IntentListQuery>;

export const IntentList = Type.Object({
  intents: Type.Array(IntentView),
  nextCursor: Nullable(Type.String()),
});
export type IntentList = Static<typeof IntentList>;
