import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PUBLIC } from '../../http/access.js';
import type { PhysicalSigner } from '../use-cases/physical-signer.js';

const PhysicalJwks = Type.Object({
  keys: Type.Array(
    Type.Object(
      {
        kty: Type.Literal('RSA'),
        n: Type.String(),
        e: Type.String(),
        kid: Type.String(),
        alg: Type.Literal('RS256'),
        use: Type.Literal('sig'),
      },
      { description: 'An RSA public key of the physical signer' },
    ),
  ),
});

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
      schema: {
        tags: ['physical'],
        summary: 'Verification keys of physical authority tokens (RS256, current and previous)',
        response: { 200: PhysicalJwks },
      },
    },
    async (_request, reply) => {
      const jwks = await signer.jwks();
      return reply.header('cache-control', 'public, max-age=300').send(jwks);
    },
  );
};
