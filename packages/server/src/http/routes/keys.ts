import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { KeyService } from '../../tenancy/key-service.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import {
  IdParams,
  IsoDateTime,
  IssuedKeySchema,
  KeySummarySchema,
  tenantErrors,
  tenantSecurity,
} from '../schemas.js';

export const keyRoutes: FastifyPluginAsyncTypebox<{ keys: KeyService }> = async (app, { keys }) => {
  app.post(
    '/keys',
    {
      config: needs('keys:manage'),
      schema: {
        tags: ['keys'],
        summary: 'Create an API key; the key is returned once and never again',
        security: tenantSecurity,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            role: Type.String(),
            scopes: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
            expiresAt: Type.Optional(IsoDateTime),
          },
          { additionalProperties: false },
        ),
        response: { 201: IssuedKeySchema, 409: tenantErrors[404], ...tenantErrors },
      },
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
      schema: {
        tags: ['keys'],
        summary: "List the tenant's API keys (never the secrets)",
        security: tenantSecurity,
        response: { 200: Type.Object({ keys: Type.Array(KeySummarySchema) }), ...tenantErrors },
      },
    },
    async (request) => ({ keys: await keys.list(principalOf(request).tenantId) }),
  );

  app.delete(
    '/keys/:id',
    {
      config: needs('keys:manage'),
      schema: {
        tags: ['keys'],
        summary: 'Revoke an API key (idempotent); another tenant’s key id answers 404',
        security: tenantSecurity,
        params: IdParams,
        response: { 204: Type.Null(), ...tenantErrors },
      },
    },
    async (request, reply) => {
      await keys.revoke(principalOf(request).tenantId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
