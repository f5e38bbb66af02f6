import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError, errorBody, validationError } from '../../errors/app-error.js';
import { decodeIdCursor, encodeIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import type { HttpMetrics } from '../../http/metrics.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import type { DecisionLoop } from '../use-cases/decision-loop.js';
import type { IntentReads } from '../use-cases/intent-reads.js';
import { intentRefusal } from './intent-refusal.js';

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
      // A body that fails validation is a final outcome under an Idempotency-Key (contract §4.6,
      // §9): the handler answers it, and stores it when a key came with it.
      attachValidation: true,
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const keyIssues = checkIdempotencyKey(request.headers['idempotency-key']);
      if (keyIssues.length > 0) throw validationError(keyIssues);
      const header = request.headers['idempotency-key'];
      const key = typeof header === 'string' ? header : undefined;
      const refusal = intentRefusal(request.body, request.validationError);
      if (refusal !== undefined) {
        if (key === undefined) throw refusal;
        const answer = await decisionLoop.recordRefusal(principal, request.body, key, {
          statusCode: refusal.status,
          body: errorBody(refusal, request.id),
        });
        return reply.code(answer.statusCode).type('application/json; charset=utf-8').send(answer.body);
      }
      const result = await decisionLoop.submit(principal, request.body, {
        explain: request.query.explain === true,
        idempotencyKey: key,
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
