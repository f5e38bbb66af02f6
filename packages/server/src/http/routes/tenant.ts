import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { needs } from '../access.js';
import { wireSchema } from '../wire-schema.js';

export const tenantRoutes: FastifyPluginAsyncTypebox<{ tenants: TenantService }> = async (
  app,
  { tenants },
) => {
  app.get(
    '/tenant',
    {
      config: needs('any'),
      schema: wireSchema(WIRE_ROUTES.getTenant),
    },
    async (request) => {
      const tenantId = request.principal?.tenantId ?? '';
      const tenant = await tenants.get(tenantId);
      if (!tenant) throw new AppError('NOT_FOUND', 'No such tenant');
      return tenant;
    },
  );
};
