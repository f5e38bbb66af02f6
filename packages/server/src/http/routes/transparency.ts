import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import type { TransparencyService } from '../../transparency/transparency-service.js';
import { needs, PUBLIC } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

const TEXT = 'text/plain; charset=utf-8';
/** The transparency log of contract §15: the public log key, the checkpoint note and the proofs. */
export const transparencyRoutes: FastifyPluginAsyncTypebox<{
  tenants: TenantService;
  transparency: TransparencyService;
}> = async (app, { tenants, transparency }) => {
  app.get(
    '/.well-known/authority/:tenantId/log-key',
    {
      config: { access: PUBLIC },
      schema: wireSchema(WIRE_ROUTES.getLogKey),
    },
    async (request, reply) => {
      if (!(await tenants.get(request.params.tenantId))) throw new AppError('NOT_FOUND', 'No such tenant');
      const key = await transparency.verifierKey(request.params.tenantId);
      return reply.type(TEXT).header('cache-control', 'public, max-age=300').send(`${key}\n`);
    },
  );

  app.get(
    '/audit/:tenantId/checkpoint',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.getLogCheckpoint),
    },
    async (request, reply) =>
      reply.type(TEXT).send(await transparency.checkpoint(principalOf(request).tenantId)),
  );

  app.get(
    '/audit/:tenantId/proof/inclusion',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.getInclusionProof),
    },
    async (request) =>
      transparency.inclusionProof(principalOf(request).tenantId, request.query.index, request.query.treeSize),
  );

  app.get(
    '/audit/:tenantId/proof/consistency',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.getConsistencyProof),
    },
    async (request) =>
      transparency.consistencyProof(principalOf(request).tenantId, request.query.from, request.query.to),
  );
};
