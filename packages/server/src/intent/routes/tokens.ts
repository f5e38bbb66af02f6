import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { DecisionTokenClaimsSchema, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import type { TokenConsumption } from '../../tokens/token-consumption.js';

export const tokenRoutes: FastifyPluginAsyncTypebox<{ tokenConsumption: TokenConsumption }> = async (
  app,
  { tokenConsumption },
) => {
  app.post(
    '/authority/tokens/consume',
    {
      config: needs('intent:token:consume'),
      schema: {
        tags: ['tokens'],
        summary: 'Verify an Authority Decision Token and consume its nonce (always 200 with the verdict)',
        security: tenantSecurity,
        body: Type.Object(
          {
            token: Type.String({ minLength: 1, maxLength: 16_384 }),
            adapterId: Type.String({ minLength: 1, maxLength: 200 }),
            targetSystem: Type.String({ minLength: 1, maxLength: 500 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Union([
            Type.Object({ valid: Type.Literal(true), claims: DecisionTokenClaimsSchema }),
            Type.Object({ valid: Type.Literal(false), reason: Type.String() }),
          ]),
          ...tenantErrors,
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return tokenConsumption.consume(principal.tenantId, principal, request.body);
    },
  );
};
