import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { TokenConsumption } from '../../tokens/token-consumption.js';

export const tokenRoutes: FastifyPluginAsyncTypebox<{ tokenConsumption: TokenConsumption }> = async (
  app,
  { tokenConsumption },
) => {
  app.post(
    '/authority/tokens/consume',
    {
      config: needs('intent:token:consume'),
      schema: wireSchema(WIRE_ROUTES.consumeToken),
    },
    async (request) => {
      const principal = principalOf(request);
      return tokenConsumption.consume(principal.tenantId, principal, request.body);
    },
  );
};
