import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import { PUBLIC } from '../access.js';
import { ErrorResponse } from '../schemas.js';

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });
const Params = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

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
      summary: "The tenant's token verification keys (ACTIVE and PREVIOUS)",
      read: (tenantId: string) => signingKeys.jwks(tenantId),
    },
    {
      file: 'jwks-archive.json',
      summary: "The tenant's RETIRED public keys, kept to verify old receipts and checkpoints",
      read: (tenantId: string) => signingKeys.archive(tenantId),
    },
  ];
  for (const set of sets) {
    app.get(
      `/.well-known/authority/:tenantId/${set.file}`,
      {
        config: { access: PUBLIC },
        schema: {
          tags: ['keys'],
          summary: set.summary,
          params: Params,
          response: { 200: Jwks, 404: ErrorResponse },
        },
      },
      async (request, reply) => {
        await tenantExists(request.params.tenantId);
        const keys = await set.read(request.params.tenantId);
        return reply.header('cache-control', 'public, max-age=300').send(keys);
      },
    );
  }
};
