import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { validationError } from '../../errors/app-error.js';
import { decodeIdCursor, encodeIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IdParams, IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import type { Approvals } from '../use-cases/approvals.js';

const Status = Type.Enum(['pending', 'approved', 'denied', 'expired']);
const Queue = Type.Enum(['standard', 'catastrophic-review']);
const errors = { ...tenantErrors, 409: tenantErrors[404] };

const ApprovalView = Type.Object({
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
});

const IntentTokenResponse = Type.Object({
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
      schema: {
        tags: ['approvals'],
        summary:
          'Approve or deny an escalated intent; the requester cannot approve, the catastrophic queue needs two senior approvers',
        security: tenantSecurity,
        body: Type.Object(
          {
            intentId: Type.String({ minLength: 1, maxLength: 100 }),
            decision: Type.Enum(['approve', 'deny']),
            approver: Type.Optional(
              Type.Object(
                {
                  id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
                  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
                },
                { additionalProperties: false },
              ),
            ),
            rationale: Type.String({ minLength: 10, maxLength: 2000 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: ApprovalView, ...errors },
      },
    },
    async (request) => approvals.decide(principalOf(request), request.body),
  );

  app.get(
    '/authority/approvals',
    {
      config: needs('authority:approve'),
      schema: {
        tags: ['approvals'],
        summary: 'Escalations for the console, newest first, by status and queue',
        security: tenantSecurity,
        querystring: Type.Object(
          {
            status: Type.Optional(Status),
            queue: Type.Optional(Queue),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            approvals: Type.Array(EscalationView),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
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

  app.post(
    '/intent/:id/token',
    {
      config: needs('intent:create'),
      schema: {
        tags: ['approvals'],
        summary:
          'The one token of an approved escalation, for the principal that submitted the intent; the same Idempotency-Key replays it',
        security: tenantSecurity,
        params: IdParams,
        response: { 200: IntentTokenResponse, ...errors },
      },
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
