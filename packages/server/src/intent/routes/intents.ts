import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import { decodeIdCursor, encodeIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import type { HttpMetrics } from '../../http/metrics.js';
import { principalOf } from '../../http/principal.js';
import { IdParams, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import {
  ALTERNATIVE_SHAPE_MESSAGE,
  checkIntentRequest,
  IntentRequestSchema,
  isAlternativeShape,
} from '../domain/intent-request.js';
import type { DecisionLoop } from '../use-cases/decision-loop.js';
import type { IntentReads } from '../use-cases/intent-reads.js';

const IntentView = Type.Object({
  intentId: Type.String(),
  correlationId: Type.String(),
  tenantId: Type.String(),
  request: Type.Unknown(),
  status: Type.String(),
  authorityDecision: Type.Unknown(),
  hypotheses: Type.Unknown(),
  approval: Type.Optional(Type.Unknown()),
  execution: Type.Unknown(),
  tokenIssued: Type.Boolean(),
  auditEntries: Type.Optional(
    Type.Array(Type.Object({ index: Type.Integer(), eventType: Type.String(), entryHash: Type.String() })),
  ),
  createdAt: Type.String(),
});
const IntentResponse = Type.Object({
  intentId: Type.String(),
  correlationId: Type.String(),
  authorityDecision: Type.Unknown(),
  audit: Type.Object({ entriesWritten: Type.Integer(), latestHash: Type.String() }),
  execution: Type.Unknown(),
  authorityDecisionToken: Type.Optional(Type.String()),
  escalationId: Type.Optional(Type.String()),
  approvalUrl: Type.Optional(
    Type.String({ description: 'ESCALATED: AUTHORITY_APPROVAL_URL + "/" + escalationId, the console page' }),
  ),
  approval: Type.Optional(Type.Unknown()),
});
const errors = { ...tenantErrors, 409: tenantErrors[404] };

export const intentRoutes: FastifyPluginAsyncTypebox<{
  decisionLoop: DecisionLoop;
  intentReads: IntentReads;
  metrics: HttpMetrics;
}> = async (app, { decisionLoop, intentReads, metrics }) => {
  app.post(
    '/intent',
    {
      config: needs('intent:create'),
      schema: {
        tags: ['intents'],
        summary: 'Submit an intent: 200 APPROVED with a token, 202 ESCALATED, 403 DENIED',
        security: tenantSecurity,
        querystring: Type.Object({ explain: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        body: IntentRequestSchema,
        // 403 is a DENIED decision (the intent response) or an access error (the envelope).
        response: {
          ...errors,
          200: IntentResponse,
          202: IntentResponse,
          403: Type.Union([IntentResponse, tenantErrors[403]]),
        },
      },
      // The API overview's other request shape gets a message naming the expected fields.
      preValidation: async (request) => {
        if (isAlternativeShape(request.body)) {
          throw validationError(
            [{ path: '/', message: ALTERNATIVE_SHAPE_MESSAGE }],
            ALTERNATIVE_SHAPE_MESSAGE,
          );
        }
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const keyIssues = checkIdempotencyKey(request.headers['idempotency-key']);
      if (keyIssues.length > 0) throw validationError(keyIssues);
      const issues = checkIntentRequest(request.body);
      if (issues.length > 0) throw validationError(issues);
      const key = request.headers['idempotency-key'];
      const result = await decisionLoop.submit(principal, request.body, {
        explain: request.query.explain === true,
        idempotencyKey: typeof key === 'string' ? key : undefined,
      });
      metrics.decisions.inc({ decision: String(result.body.authorityDecision.decision) });
      return reply.code(result.statusCode).send(result.body);
    },
  );

  app.get(
    '/intent/:id',
    {
      config: needs('intent:read'),
      schema: {
        tags: ['intents'],
        summary:
          'An intent with its request, decision trace, hypotheses, approval, execution and audit entries',
        security: tenantSecurity,
        params: IdParams,
        response: { 200: IntentView, ...errors },
      },
    },
    async (request) => {
      const view = await intentReads.get(principalOf(request).tenantId, request.params.id);
      if (!view) throw new AppError('NOT_FOUND', 'No such intent');
      return view;
    },
  );

  app.get(
    '/intents',
    {
      config: needs('intent:read'),
      schema: {
        tags: ['intents'],
        summary: 'Intents, newest first, with keyset pagination',
        security: tenantSecurity,
        querystring: Type.Object(
          {
            status: Type.Optional(
              Type.Enum([
                'APPROVED',
                'ESCALATED',
                'DENIED',
                'APPROVED_AFTER_REVIEW',
                'DENIED_AFTER_REVIEW',
                'EXPIRED',
              ]),
            ),
            actorId: Type.Optional(Type.String({ maxLength: 200 })),
            targetSystem: Type.Optional(Type.String({ maxLength: 200 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            intents: Type.Array(IntentView),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { cursor, ...filters } = request.query;
      const before = decodeIdCursor(cursor);
      const limit = filters.limit ?? 50;
      const page = await intentReads.list(principalOf(request).tenantId, {
        ...filters,
        before,
        limit,
      });
      const last = page.intents[page.intents.length - 1];
      return {
        intents: page.intents,
        nextCursor: page.hasMore && last ? encodeIdCursor(last.intentId) : null,
      };
    },
  );
};
