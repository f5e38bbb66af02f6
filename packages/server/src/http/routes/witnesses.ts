import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WitnessSettings } from '../../transparency/witness-settings.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { tenantSecurity } from '../schemas.js';

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
      schema: {
        tags: [route.tag],
        summary: route.summary,
        description:
          'After each checkpoint the service POSTs it to `<url>/add-checkpoint` with a consistency proof from the size ' +
          'the witness last cosigned, through the egress guard, and serves the cosignatures with the checkpoint.',
        security: tenantSecurity,
        body: route.schema.body,
        response: route.schema.response,
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return witnesses.replace(principal.tenantId, principal, request.body);
    },
  );
};
