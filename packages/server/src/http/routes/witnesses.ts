import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WitnessSettings } from '../../transparency/witness-settings.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

/**
 * `PUT /audit/witnesses` (contract §15): the log's witnesses and quorum; `GET` reads them with each
 * witness's push state (an operator's only way to see why cosignatures stopped).
 */
export const witnessRoutes: FastifyPluginAsyncTypebox<{ witnesses: WitnessSettings }> = async (
  app,
  { witnesses },
) => {
  app.get(
    WIRE_ROUTES.getWitnesses.path,
    {
      config: needs('tenant:admin'),
      schema: wireSchema(WIRE_ROUTES.getWitnesses),
    },
    async (request) => witnesses.read(principalOf(request).tenantId),
  );

  app.put(
    WIRE_ROUTES.setWitnesses.path,
    {
      config: needs('tenant:admin'),
      schema: wireSchema(WIRE_ROUTES.setWitnesses),
    },
    async (request) => {
      const principal = principalOf(request);
      return witnesses.replace(principal.tenantId, principal, request.body);
    },
  );
};
