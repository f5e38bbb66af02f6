import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import {
  ACTOR_TYPES,
  APPROVAL_QUEUES,
  APPROVAL_STATUSES,
  GATES,
  INTENT_OUTCOMES,
  INTENT_STATUSES,
} from './constants.js';
import { Args, Hypothesis, MatchedRule, RiskContext } from './intent.js';

/** Human review of escalated intents (contract §4.8). */

export const ApprovalDecision = Type.Enum(['approve', 'deny']);

/** The body of `POST /authority/approval`. The approver is the authenticated principal; `approver` is display only. */
export const ApprovalRequest = Type.Object(
  {
    intentId: Type.String({ minLength: 1, maxLength: 100 }),
    decision: ApprovalDecision,
    approver: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        Closed,
      ),
    ),
    rationale: Type.String({ minLength: 10, maxLength: 2000 }),
  },
  Closed,
);
export type ApprovalRequest = Static<typeof ApprovalRequest>;

/** The answer of `POST /authority/approval`: the recorded approval and where the escalation stands. */
export const ApprovalView = Type.Object({
  approvalId: Type.String(),
  intentId: Type.String(),
  escalationId: Type.String(),
  decision: ApprovalDecision,
  approver: Type.Object({
    principalId: Type.String({ description: 'The authenticated principal that decided' }),
    id: Nullable(Type.String()),
    name: Nullable(Type.String()),
  }),
  rationale: Type.String(),
  decidedAt: IsoDateTime,
  status: Type.Enum(APPROVAL_STATUSES),
  approvalsReceived: Type.Integer(),
  requiredApprovals: Type.Integer(),
});
export type ApprovalView = Static<typeof ApprovalView>;

/** An escalation as `GET /authority/approvals` lists it (contract §4.8, §14). */
export const EscalationView = Type.Object({
  escalationId: Type.String(),
  intentId: Type.String(),
  queue: Type.Enum(APPROVAL_QUEUES),
  status: Type.Enum(APPROVAL_STATUSES),
  requiredApprovals: Type.Integer(),
  approvalsReceived: Type.Integer(),
  expiresAt: IsoDateTime,
  createdAt: IsoDateTime,
  actorId: Type.String(),
  targetSystem: Type.String(),
  proposedAction: Type.String(),
  riskScore: Nullable(Type.Number()),
  decidingRule: Nullable(MatchedRule),
  argsPreview: Nullable(
    Type.String({ description: 'JSON of args, at most 256 characters, secret-looking keys redacted' }),
  ),
  approvalUrl: Type.String({ description: 'AUTHORITY_APPROVAL_URL + "/" + escalationId: the console page' }),
});
export type EscalationView = Static<typeof EscalationView>;

/** One human decision recorded on an escalation. */
export const RecordedDecision = Type.Object({
  approvalId: Type.String(),
  decision: ApprovalDecision,
  approver: Type.Object({
    principalId: Type.String({ description: 'The authenticated principal that decided' }),
    id: Nullable(Type.String()),
    name: Nullable(Type.String()),
  }),
  rationale: Type.String(),
  decidedAt: IsoDateTime,
});
export type RecordedDecision = Static<typeof RecordedDecision>;

/**
 * `GET /authority/approvals/:escalationId`: the escalation with the intent it holds (who asks, what,
 * the decision trace, the whole of args with secret-looking keys redacted) and the decisions so far.
 */
export const EscalationDetail = Type.Object({
  ...EscalationView.properties,
  intent: Type.Object({
    status: Type.Enum(INTENT_STATUSES),
    requestedBy: Type.String({
      description: 'The principal that submitted the intent; it may not approve it (separation of duties)',
    }),
    actor: Type.Object({ id: Type.String(), type: Type.Enum(ACTOR_TYPES) }),
    args: Type.Union([Args, Type.Null()], {
      description: 'The whole of args, secret-looking keys redacted; null without args',
    }),
    riskContext: Type.Union([RiskContext, Type.Null()], {
      description: 'As submitted; null only for a record without one',
    }),
    decision: Type.Object({
      decision: Type.Enum(INTENT_OUTCOMES, { description: 'The decision when submitted (ESCALATED)' }),
      riskScore: Nullable(Type.Number({ minimum: 0, maximum: 100 })),
      rationale: Type.Array(Type.String()),
      gateTrace: Type.Array(Type.Enum(GATES)),
      matchedRules: Type.Array(MatchedRule),
      intent: Type.Union([Hypothesis, Type.Null()], {
        description: 'The primary interpretation of the action',
      }),
    }),
  }),
  decisions: Type.Array(RecordedDecision, { description: 'Oldest first' }),
});
export type EscalationDetail = Static<typeof EscalationDetail>;

export const EscalationParams = Type.Object({ escalationId: Type.String({ minLength: 1, maxLength: 100 }) });

export const ApprovalListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(APPROVAL_STATUSES, { description: 'Default pending' })),
    queue: Type.Optional(Type.Enum(APPROVAL_QUEUES)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  Closed,
);
export type ApprovalListQuery = Static<typeof ApprovalListQuery>;

export const ApprovalList = Type.Object({
  approvals: Type.Array(EscalationView),
  nextCursor: Nullable(Type.String()),
});
export type ApprovalList = Static<typeof ApprovalList>;
