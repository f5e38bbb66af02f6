import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Counter } from 'prom-client';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import { needs } from '../../http/access.js';
import { toAppError } from '../../http/error-envelope.js';
import type { HttpMetrics } from '../../http/metrics.js';
import { principalOf } from '../../http/principal.js';
import { ErrorResponse, Nullable, tenantSecurity } from '../../http/schemas.js';
import { SAFE_DEFAULTS } from '../domain/index.js';
import { AuthorityTokenRequestSchema, ClassifyRequestSchema } from '../domain/physical-request.js';
import type { PhysicalIdempotency } from '../use-cases/physical-idempotency.js';
import type { PhysicalIssuance } from '../use-cases/physical-issuance.js';
import { Millis, physicalErrors, sendOutcome } from './physical-schemas.js';

const ClassificationSchema = Type.Object({
  oiCode: Type.String({ description: 'OI-NNN or OI-NNNN' }),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String({ description: 'OI-29NN' })),
  alternatives: Type.Array(Type.Object({ oiCode: Type.String(), confidence: Type.Number() }), {
    maxItems: 3,
  }),
  failClosed: Type.Boolean({ description: 'No rule matched confidently: treat as a denial' }),
  explanation: Nullable(Type.String()),
});

const AllowSchema = Type.Object({
  decision: Type.Literal('ALLOW'),
  token: Type.String({ description: 'RS256 JWT for service-edge-verifier' }),
  oiCode: Type.String(),
  expiresAtMs: Millis,
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String()),
  physicalStateRef: Nullable(Type.String({ description: 'null when no physicalState was sent' })),
  tokenJti: Type.String(),
});

const EscalateSchema = Type.Object({
  decision: Type.Literal('ESCALATE'),
  escalationTicketId: Type.String({ description: 'esc_ + UUIDv7' }),
  approvalUrl: Type.String(),
  safeDefault: Type.Enum(SAFE_DEFAULTS),
  expiresAtMs: { ...Millis, description: 'Ticket expiry (one hour)' },
});

const DenyResponse = {
  ...ErrorResponse,
  description:
    'policy_denied: details {decision: "DENY", clauseId, clauseIds, safeDefault, safetyBit, safetyCitations, explanation?}',
};

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

  app.post(
    '/physical/classify',
    {
      config: needs('physical:classify'),
      schema: {
        tags: ['physical'],
        summary: 'Classify a structured goal into an open-intent code; no token',
        security: tenantSecurity,
        body: ClassifyRequestSchema,
        response: { 200: ClassificationSchema, ...physicalErrors },
      },
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
      schema: {
        tags: ['physical'],
        summary:
          'Run the authority loop: ALLOW mints a token, ESCALATE opens a ticket, DENY is 422 (423 for an audit gap)',
        security: tenantSecurity,
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 visible ASCII characters' })),
        }),
        body: AuthorityTokenRequestSchema,
        response: {
          200: Type.Union([AllowSchema, EscalateSchema]),
          ...physicalErrors,
          422: DenyResponse,
          423: DenyResponse,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      let outcome: Awaited<ReturnType<typeof idempotency.run>>;
      try {
        outcome = await idempotency.run(
          {
            tenantId: principal.tenantId,
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
