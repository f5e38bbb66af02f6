import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import { PUBLIC } from '../access.js';
import { wireSchema } from '../wire-schema.js';

/** Public key sets: ACTIVE and PREVIOUS keys (verify tokens), and the archive of RETIRED keys (receipts). */
export const jwksRoutes: FastifyPluginAsyncTypebox<{
  tenants: TenantService;
  signingKeys: SigningKeyService;
}> = async (app, { tenants, signingKeys }) => {
  async function tenantExists(tenantId: string): Promise<void> {
    if (!(await tenants.get(tenantId))) throw new AppError('NOT_FOUND', 'No such tenant');
  }

  const sets = [
    {
      file: 'jwks.json',
      route: WIRE_ROUTES.getTenantJwks,
      read: (tenantId: string) => signingKeys.jwks(tenantId),
    },
    {
      file: 'jwks-archive.json',
      route: WIRE_ROUTES.getTenantJwksArchive,
      read: (tenantId: string) => signingKeys.archive(tenantId),
    },
  ];
  for (const set of sets) {
    app.get(
      `/.well-known/authority/:tenantId/${set.file}`,
      {
        config: { access: PUBLIC },
        schema: wireSchema(set.route),
      },
      async (request, reply) => {
        await tenantExists(request.params.tenantId);
        const keys = await set.read(request.params.tenantId);
        return reply.header('cache-control', 'public, max-age=300').send(keys);
      },
    );
  }
};
