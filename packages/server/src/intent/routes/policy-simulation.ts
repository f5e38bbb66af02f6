import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import { MAX_SAMPLE_LIMIT, type PolicySimulation } from '../use-cases/policy-simulation.js';

const OUTCOME = Type.Union([Type.Literal('APPROVED'), Type.Literal('ESCALATED'), Type.Literal('DENIED')]);
const Decision = Type.Object({
  decision: OUTCOME,
  decidingRule: Type.Object({ id: Type.String(), effect: Type.String(), priority: Type.Integer() }),
});
const SimulationResultSchema = Type.Object({
  evaluated: Type.Integer(),
  changed: Type.Integer(),
  transitions: Type.Record(Type.String(), Type.Integer()),
  changes: Type.Array(
    Type.Object({ intentId: Type.String(), createdAt: IsoDateTime, before: Decision, after: Decision }),
  ),
  durationMs: Type.Integer(),
});
const ShortText = Type.String({ minLength: 1, maxLength: 200 });

export const policySimulationRoutes: FastifyPluginAsyncTypebox<{ simulate: PolicySimulation }> = async (
  app,
  { simulate },
) => {
  app.post(
    '/authority/policy/simulate',
    {
      config: needs('authority:policy:read'),
      schema: {
        tags: ['policy'],
        summary:
          'Replay the most recent matching intents against a draft (rules) or a stored version; decides nothing',
        security: tenantSecurity,
        body: Type.Object(
          {
            rules: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 2_000 })),
            version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
            replacePacks: Type.Optional(Type.Boolean()),
            sample: Type.Optional(
              Type.Object(
                {
                  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SAMPLE_LIMIT })),
                  from: Type.Optional(IsoDateTime),
                  to: Type.Optional(IsoDateTime),
                  actorId: Type.Optional(ShortText),
                  targetSystem: Type.Optional(ShortText),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: SimulationResultSchema, ...tenantErrors },
      },
    },
    async (request) => simulate(principalOf(request), request.body),
  );
};
