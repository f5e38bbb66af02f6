import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import { decodeIdCursor, encodeIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, Nullable, tenantErrors } from '../../http/schemas.js';
import { wireSchema } from '../../http/wire-schema.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import type { Approvals } from '../use-cases/approvals.js';

const Status = Type.Enum(['pending', 'approved', 'denied', 'expired']);
const Queue = Type.Enum(['standard', 'catastrophic-review']);
const _errors = { ...tenantErrors, 409: tenantErrors[404] };

const _ApprovalView = Type.Object({
  approvalId: Type.String(),
  intentId: Type.String(),
  escalationId: Type.String(),
  decision: Type.Enum(['approve', 'deny']),
  approver: Type.Object({
    principalId: Type.String(),
    id: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
  }),
  rationale: Type.String(),
  decidedAt: IsoDateTime,
  status: Status,
  approvalsReceived: Type.Integer(),
  requiredApprovals: Type.Integer(),
});

const RuleRef = Type.Object({ id: Type.String(), effect: Type.String(), priority: Type.Integer() });

const EscalationView = Type.Object({
  escalationId: Type.String(),
  intentId: Type.String(),
  queue: Queue,
  status: Status,
  requiredApprovals: Type.Integer(),
  approvalsReceived: Type.Integer(),
  expiresAt: IsoDateTime,
  createdAt: IsoDateTime,
  actorId: Type.String(),
  targetSystem: Type.String(),
  proposedAction: Type.String(),
  riskScore: Type.Union([Type.Number(), Type.Null()]),
  decidingRule: Nullable(RuleRef),
  argsPreview: Nullable(
    Type.String({ description: 'JSON of args, at most 256 characters, secret-looking keys redacted' }),
  ),
  approvalUrl: Type.String({ description: 'AUTHORITY_APPROVAL_URL + "/" + escalationId: the console page' }),
});

const DecisionView = Type.Object({
  approvalId: Type.String(),
  decision: Type.Enum(['approve', 'deny']),
  approver: Type.Object({
    principalId: Type.String({ description: 'The authenticated principal that decided' }),
    id: Nullable(Type.String()),
    name: Nullable(Type.String()),
  }),
  rationale: Type.String(),
  decidedAt: IsoDateTime,
});

const _EscalationDetail = Type.Object({
  ...EscalationView.properties,
  intent: Type.Object({
    status: Type.String(),
    requestedBy: Type.String({
      description: 'The principal that submitted the intent; it may not approve it (separation of duties)',
    }),
    actor: Type.Object({ id: Type.String(), type: Type.String() }),
    args: Type.Unknown({ description: 'The whole of args, secret-looking keys redacted; null without args' }),
    riskContext: Type.Unknown(),
    decision: Type.Object({
      decision: Type.String(),
      riskScore: Nullable(Type.Number()),
      rationale: Type.Unknown(),
      gateTrace: Type.Unknown(),
      matchedRules: Type.Unknown(),
      intent: Type.Unknown(),
    }),
  }),
  decisions: Type.Array(DecisionView, { description: 'Human decisions so far, oldest first' }),
});

const _IntentTokenResponse = Type.Object({
  intentId: Type.String(),
  correlationId: Type.String(),
  authorityDecision: Type.Unknown(),
  audit: Type.Object({ entriesWritten: Type.Integer(), latestHash: Type.String() }),
  execution: Type.Unknown(),
  authorityDecisionToken: Type.String(),
});

/** Human review of escalated intents (contract §4.8). */
export const approvalRoutes: FastifyPluginAsyncTypebox<{ approvals: Approvals }> = async (
  app,
  { approvals },
) => {
  app.post(
    '/authority/approval',
    {
      config: needs('authority:approve'),
      schema: wireSchema(WIRE_ROUTES.decideApproval),
    },
    async (request) => approvals.decide(principalOf(request), request.body),
  );

  app.get(
    '/authority/approvals',
    {
      config: needs('authority:approve'),
      schema: wireSchema(WIRE_ROUTES.listApprovals),
    },
    async (request) => {
      const { cursor, status, queue } = request.query;
      const before = decodeIdCursor(cursor);
      const limit = request.query.limit ?? 50;
      const page = await approvals.list(principalOf(request).tenantId, {
        status: status ?? 'pending',
        queue,
        before,
        limit,
      });
      const last = page.approvals[page.approvals.length - 1];
      return {
        approvals: page.approvals,
        nextCursor: page.hasMore && last ? encodeIdCursor(last.intentId) : null,
      };
    },
  );

  app.get(
    '/authority/approvals/:escalationId',
    {
      config: needs('authority:approve'),
      schema: wireSchema(WIRE_ROUTES.getApproval),
    },
    async (request) => {
      const detail = await approvals.get(principalOf(request).tenantId, request.params.escalationId);
      if (!detail) throw new AppError('NOT_FOUND', 'No such escalation');
      return detail;
    },
  );

  app.post(
    '/intent/:id/token',
    {
      config: needs('intent:create'),
      schema: wireSchema(WIRE_ROUTES.fetchIntentToken),
    },
    async (request) => {
      const key = request.headers['idempotency-key'];
      const keyIssues = checkIdempotencyKey(key);
      if (keyIssues.length > 0) throw validationError(keyIssues);
      const idempotencyKey = typeof key === 'string' ? key : undefined;
      return approvals.issueToken(principalOf(request), request.params.id, idempotencyKey);
    },
  );
};
