import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import type { Services } from '../../services.js';
import { PUBLIC } from '../access.js';
import { ErrorResponse } from '../schemas.js';

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });
const Params = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

/** Public key sets: ACTIVE and PREVIOUS keys (verify tokens), and the archive of RETIRED keys (receipts). */
export const jwksRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  async function tenantExists(tenantId: string): Promise<void> {
    if (!(await services.tenants.get(tenantId))) throw new AppError('NOT_FOUND', 'No such tenant');
  }

  app.get(
    '/.well-known/authority/:tenantId/jwks.json',
    {
      config: { access: PUBLIC },
      schema: {
        tags: ['keys'],
        summary: "The tenant's token verification keys (ACTIVE and PREVIOUS)",
        params: Params,
        response: { 200: Jwks, 404: ErrorResponse },
      },
    },
    async (request, reply) => {
      await tenantExists(request.params.tenantId);
      const jwks = await services.signingKeys.jwks(request.params.tenantId);
      return reply.header('cache-control', 'public, max-age=300').send(jwks);
    },
  );

  app.get(
    '/.well-known/authority/:tenantId/jwks-archive.json',
    {
      config: { access: PUBLIC },
      schema: {
        tags: ['keys'],
        summary: "The tenant's RETIRED public keys, kept to verify old receipts and checkpoints",
        params: Params,
        response: { 200: Jwks, 404: ErrorResponse },
      },
    },
    async (request, reply) => {
      await tenantExists(request.params.tenantId);
      const archive = await services.signingKeys.archive(request.params.tenantId);
      return reply.header('cache-control', 'public, max-age=300').send(archive);
    },
  );
};
