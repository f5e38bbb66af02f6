import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WitnessSettings } from '../../transparency/witness-settings.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

const route = WIRE_ROUTES.setWitnesses;

/** `PUT /audit/witnesses` (contract §15): the log's witnesses and quorum. */
export const witnessRoutes: FastifyPluginAsyncTypebox<{ witnesses: WitnessSettings }> = async (
  app,
  { witnesses },
) => {
  app.put(
    route.path,
    {
      config: needs('tenant:admin'),
      schema: wireSchema(route),
    },
    async (request) => {
      const principal = principalOf(request);
      return witnesses.replace(principal.tenantId, principal, request.body);
    },
  );
};
