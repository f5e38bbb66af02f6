import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import { APPROVAL_QUEUES, APPROVAL_STATUSES } from './constants.js';

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

/** An escalation as `GET /authority/approvals` lists it. */
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
});
export type EscalationView = Static<typeof EscalationView>;

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
