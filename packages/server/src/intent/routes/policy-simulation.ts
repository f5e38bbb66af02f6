import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PolicySimulation } from '../use-cases/policy-simulation.js';

export const policySimulationRoutes: FastifyPluginAsyncTypebox<{ simulate: PolicySimulation }> = async (
  app,
  { simulate },
) => {
  app.post(
    '/authority/policy/simulate',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.simulatePolicy),
    },
    async (request) => simulate(principalOf(request), request.body),
  );
};
