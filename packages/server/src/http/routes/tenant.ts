import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { needs } from '../access.js';
import { TenantSchema, tenantErrors, tenantSecurity } from '../schemas.js';

export const tenantRoutes: FastifyPluginAsyncTypebox<{ tenants: TenantService }> = async (
  app,
  { tenants },
) => {
  app.get(
    '/tenant',
    {
      config: needs('any'),
      schema: {
        tags: ['tenancy'],
        summary: "The calling credential's tenant",
        security: tenantSecurity,
        response: { 200: TenantSchema, ...tenantErrors },
      },
    },
    async (request) => {
      const tenantId = request.principal?.tenantId ?? '';
      const tenant = await tenants.get(tenantId);
      if (!tenant) throw new AppError('NOT_FOUND', 'No such tenant');
      return tenant;
    },
  );
};
