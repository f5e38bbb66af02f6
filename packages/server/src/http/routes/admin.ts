import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { ADMIN } from '../access.js';
import { ErrorResponse, IdParams, IssuedKeySchema, TenantSchema } from '../schemas.js';

const adminErrors = {
  400: ErrorResponse,
  401: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  500: ErrorResponse,
};
const adminSecurity: Array<Record<string, string[]>> = [{ adminToken: [] }];

/** Operator routes behind `x-admin-token`; registered only when AUTHORITY_ADMIN_TOKEN is set. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ tenants: TenantService }> = async (
  app,
  { tenants },
) => {
  app.post(
    '/admin/tenants',
    {
      config: { access: ADMIN },
      schema: {
        tags: ['admin'],
        summary: 'Create a tenant and its first owner key (shown once)',
        security: adminSecurity,
        body: Type.Object(
          {
            id: Type.String(),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            plan: Type.String(),
            rateLimitPerMinute: Type.Optional(Type.Integer()),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ tenant: TenantSchema, ownerKey: IssuedKeySchema }), ...adminErrors },
      },
    },
    async (request, reply) => {
      const created = await tenants.create(request.body);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.patch(
    '/admin/tenants/:id',
    {
      config: { access: ADMIN },
      schema: {
        tags: ['admin'],
        summary: "Change a tenant's plan or enterprise rate limit",
        security: adminSecurity,
        params: IdParams,
        body: Type.Object(
          { plan: Type.Optional(Type.String()), rateLimitPerMinute: Type.Optional(Type.Integer()) },
          { additionalProperties: false },
        ),
        response: { 200: TenantSchema, ...adminErrors },
      },
    },
    async (request) => tenants.update(request.params.id, request.body),
  );
};
