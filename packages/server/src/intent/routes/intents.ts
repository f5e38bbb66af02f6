import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import { decodeIdCursor, encodeIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import type { HttpMetrics } from '../../http/metrics.js';
import { principalOf } from '../../http/principal.js';
import { tenantErrors } from '../../http/schemas.js';
import { wireSchema } from '../../http/wire-schema.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import {
  ALTERNATIVE_SHAPE_MESSAGE,
  checkIntentRequest,
  isAlternativeShape,
} from '../domain/intent-request.js';
import type { DecisionLoop } from '../use-cases/decision-loop.js';
import type { IntentReads } from '../use-cases/intent-reads.js';

const _IntentView = Type.Object({
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
const _IntentResponse = Type.Object({
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
const _errors = { ...tenantErrors, 409: tenantErrors[404] };

export const intentRoutes: FastifyPluginAsyncTypebox<{
  decisionLoop: DecisionLoop;
  intentReads: IntentReads;
  metrics: HttpMetrics;
}> = async (app, { decisionLoop, intentReads, metrics }) => {
  app.post(
    '/intent',
    {
      config: needs('intent:create'),
      schema: wireSchema(WIRE_ROUTES.submitIntent),
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
      schema: wireSchema(WIRE_ROUTES.getIntent),
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
      schema: wireSchema(WIRE_ROUTES.listIntents),
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
