import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { KeyService } from '../../tenancy/key-service.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const keyRoutes: FastifyPluginAsyncTypebox<{ keys: KeyService }> = async (app, { keys }) => {
  app.post(
    '/keys',
    {
      config: needs('keys:manage'),
      schema: wireSchema(WIRE_ROUTES.createApiKey),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const issued = await keys.create(principal.tenantId, request.body, principal);
      return reply.code(201).header('cache-control', 'no-store').send(issued);
    },
  );

  app.get(
    '/keys',
    {
      config: needs('keys:manage'),
      schema: wireSchema(WIRE_ROUTES.listApiKeys),
    },
    async (request) => ({ keys: await keys.list(principalOf(request).tenantId) }),
  );

  app.delete(
    '/keys/:id',
    {
      config: needs('keys:manage'),
      schema: wireSchema(WIRE_ROUTES.revokeApiKey),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await keys.revoke(principal.tenantId, request.params.id, principal);
      return reply.code(204).send(null);
    },
  );
};
