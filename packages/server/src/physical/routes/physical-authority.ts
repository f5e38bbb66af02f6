import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Counter } from 'prom-client';
import { AppError } from '../../errors/app-error.js';
import { needs } from '../../http/access.js';
import { toAppError } from '../../http/error-envelope.js';
import type { HttpMetrics } from '../../http/metrics.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalIdempotency } from '../use-cases/physical-idempotency.js';
import type { PhysicalIssuance } from '../use-cases/physical-issuance.js';
import { sendOutcome } from './physical-schemas.js';

/**
 * The decision endpoints of the physical surface (document 02, contract §9): classification and
 * the authority loop that mints tokens. Policy upload and read are in physical-policy.ts.
 */
export const physicalAuthorityRoutes: FastifyPluginAsyncTypebox<{
  issuance: PhysicalIssuance;
  idempotency: PhysicalIdempotency;
  metrics: HttpMetrics;
}> = async (app, { issuance, idempotency, metrics }) => {
  const decisions = new Counter({
    name: 'authority_physical_decisions_total',
    help: 'POST /physical/authority-tokens outcomes (ALLOW, ESCALATE, DENY) made, replays excluded; never by tenant',
    labelNames: ['decision'] as const,
    registers: [metrics.registry],
  });
  for (const decision of ['ALLOW', 'ESCALATE', 'DENY'] as const) decisions.inc({ decision }, 0);

  app.post(
    '/physical/classify',
    {
      config: needs('physical:classify'),
      schema: wireSchema(WIRE_ROUTES.classifyGoal),
    },
    async (request) => issuance.classify(principalOf(request), request.body.goal),
  );

  app.post(
    '/physical/authority-tokens',
    {
      config: needs('physical:token:issue'),
      // A body that fails the schema is a final outcome too (contract §9 stores 400s): the handler
      // records it under the Idempotency-Key like any other answer.
      attachValidation: true,
      schema: wireSchema(WIRE_ROUTES.issuePhysicalToken),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      let outcome: Awaited<ReturnType<typeof idempotency.run>>;
      try {
        outcome = await idempotency.run(
          {
            tenantId: principal.tenantId,
            principalId: principal.id,
            key: request.headers['idempotency-key'],
            route: 'POST /physical/authority-tokens',
            body: request.body,
            requestId: request.id,
          },
          async (scope) => {
            if (request.validationError) throw toAppError(request.validationError).appError;
            return issuance.issue(principal.tenantId, request.body, scope);
          },
        );
      } catch (error) {
        if (error instanceof AppError && error.code.startsWith('POLICY_DENIED')) {
          decisions.inc({ decision: 'DENY' });
        }
        throw error;
      }
      const { decision } = outcome.body as { decision?: unknown };
      if (!outcome.replayed && typeof decision === 'string') decisions.inc({ decision });
      return sendOutcome(reply, outcome);
    },
  );
};
