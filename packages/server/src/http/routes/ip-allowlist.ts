import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CidrBlock } from '../../foundation/ip-allowlist.js';
import type { TenantAccessService } from '../../tenancy/tenant-access.js';
import { needs } from '../access.js';
import { requestAddress } from '../client-address.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const ipAllowlistRoutes: FastifyPluginAsyncTypebox<{
  tenantAccess: TenantAccessService;
  trustProxy: readonly CidrBlock[];
}> = async (app, { tenantAccess, trustProxy }) => {
  app.put(
    '/tenant/ip-allowlist',
    {
      config: needs('tenant:admin'),
      schema: wireSchema(WIRE_ROUTES.setIpAllowlist),
    },
    async (request) => {
      const principal = principalOf(request);
      return tenantAccess.setIpAllowlist(
        principal.tenantId,
        principal,
        request.body.cidrs,
        requestAddress(request, trustProxy),
      );
    },
  );
};
