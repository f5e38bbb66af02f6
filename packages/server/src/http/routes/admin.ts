import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { ADMIN } from '../access.js';
import { wireSchema } from '../wire-schema.js';

/** Operator routes behind `x-admin-token`; registered only when AUTHORITY_ADMIN_TOKEN is set. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ tenants: TenantService }> = async (
  app,
  { tenants },
) => {
  app.post(
    '/admin/tenants',
    {
      config: { access: ADMIN },
      schema: wireSchema(WIRE_ROUTES.createTenant),
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
      schema: wireSchema(WIRE_ROUTES.updateTenant),
    },
    async (request) => tenants.update(request.params.id, request.body),
  );
};
