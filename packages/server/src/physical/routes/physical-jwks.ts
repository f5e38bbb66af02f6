import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PUBLIC } from '../../http/access.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalSigner } from '../use-cases/physical-signer.js';

/**
 * The physical signer's public keys (document 02 "Authentication" 4, contract §9): ACTIVE and
 * PREVIOUS, shared by every tenant. Verifiers refresh on an unknown kid.
 */
export const physicalJwksRoutes: FastifyPluginAsyncTypebox<{ signer: PhysicalSigner }> = async (
  app,
  { signer },
) => {
  app.get(
    '/.well-known/jwks.json',
    {
      config: { access: PUBLIC },
      schema: wireSchema(WIRE_ROUTES.getPhysicalJwks),
    },
    async (_request, reply) => {
      const jwks = await signer.jwks();
      return reply.header('cache-control', 'public, max-age=300').send(jwks);
    },
  );
};
