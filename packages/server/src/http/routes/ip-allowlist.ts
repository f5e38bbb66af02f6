import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { type CidrBlock, MAX_ALLOWLIST_ENTRIES } from '../../foundation/ip-allowlist.js';
import type { TenantAccessService } from '../../tenancy/tenant-access.js';
import { needs } from '../access.js';
import { requestAddress } from '../client-address.js';
import { principalOf } from '../principal.js';
import { TenantSchema, tenantErrors, tenantSecurity } from '../schemas.js';

export const ipAllowlistRoutes: FastifyPluginAsyncTypebox<{
  tenantAccess: TenantAccessService;
  trustProxy: readonly CidrBlock[];
}> = async (app, { tenantAccess, trustProxy }) => {
  app.put(
    '/tenant/ip-allowlist',
    {
      config: needs('tenant:admin'),
      schema: {
        tags: ['tenancy'],
        summary:
          "Replace the tenant's IP allowlist (IPv4/IPv6 addresses or CIDR blocks; empty allows all); audited",
        description:
          'Requests from addresses outside a non-empty list answer 403 IP_NOT_ALLOWED. A list that ' +
          'would exclude the address of this very request is refused (400), so nobody locks themselves out.',
        security: tenantSecurity,
        body: Type.Object(
          {
            cidrs: Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_ALLOWLIST_ENTRIES }),
          },
          { additionalProperties: false },
        ),
        response: { 200: TenantSchema, ...tenantErrors },
      },
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
