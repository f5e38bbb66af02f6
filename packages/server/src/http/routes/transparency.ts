import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import type { TransparencyService } from '../../transparency/transparency-service.js';
import { needs, PUBLIC } from '../access.js';
import { principalOf } from '../principal.js';
import { ErrorResponse, tenantErrors, tenantSecurity } from '../schemas.js';

const TEXT = 'text/plain; charset=utf-8';
const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });
/** Tree sizes and indexes are 32-bit integers in storage, like chain indexes. */
const Size = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
const Hex = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** The transparency log of contract §15: the public log key, the checkpoint note and the proofs. */
export const transparencyRoutes: FastifyPluginAsyncTypebox<{
  tenants: TenantService;
  transparency: TransparencyService;
}> = async (app, { tenants, transparency }) => {
  app.get(
    '/.well-known/authority/:tenantId/log-key',
    {
      config: { access: PUBLIC },
      schema: {
        tags: ['audit'],
        summary: "The tenant's log verifier key (C2SP signed-note, Ed25519): one line of text",
        params: TenantParams,
        response: { 200: Type.String(), 404: ErrorResponse },
      },
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
      schema: {
        tags: ['audit'],
        summary: 'The signed checkpoint note (C2SP tlog-checkpoint) of the current chain length',
        security: tenantSecurity,
        params: TenantParams,
        response: { 200: Type.String(), ...tenantErrors },
      },
    },
    async (request, reply) =>
      reply.type(TEXT).send(await transparency.checkpoint(principalOf(request).tenantId)),
  );

  app.get(
    '/audit/:tenantId/proof/inclusion',
    {
      config: needs('audit:read'),
      schema: {
        tags: ['audit'],
        summary: 'RFC 9162 inclusion proof of entry `index` in the tree of `treeSize` entries',
        security: tenantSecurity,
        params: TenantParams,
        querystring: Type.Object({ index: Size, treeSize: Size }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            index: Type.Integer(),
            treeSize: Type.Integer(),
            leafHash: Hex,
            proof: Type.Array(Hex),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) =>
      transparency.inclusionProof(principalOf(request).tenantId, request.query.index, request.query.treeSize),
  );

  app.get(
    '/audit/:tenantId/proof/consistency',
    {
      config: needs('audit:read'),
      schema: {
        tags: ['audit'],
        summary: 'RFC 9162 consistency proof from the tree of `from` entries to the tree of `to` entries',
        security: tenantSecurity,
        params: TenantParams,
        querystring: Type.Object({ from: Size, to: Size }, { additionalProperties: false }),
        response: {
          200: Type.Object({ from: Type.Integer(), to: Type.Integer(), proof: Type.Array(Hex) }),
          ...tenantErrors,
        },
      },
    },
    async (request) =>
      transparency.consistencyProof(principalOf(request).tenantId, request.query.from, request.query.to),
  );
};
