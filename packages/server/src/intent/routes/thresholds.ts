import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import type { ThresholdsStore } from '../use-cases/thresholds-store.js';

const Modifiers = Type.Object({
  privileged: Type.Number(),
  production: Type.Number(),
  sensitive: Type.Number(),
});
const ThresholdsSchema = Type.Object({
  tenantId: Type.String(),
  escalateAt: Type.Number(),
  denyAt: Type.Number(),
  modifiers: Modifiers,
  lowConfidenceEscalateBelow: Type.Number(),
  approvalTtlSeconds: Type.Integer(),
  tokenTtlSeconds: Type.Integer(),
  updatedAt: Type.Union([IsoDateTime, Type.Null()]),
  updatedBy: Type.Union([Type.String(), Type.Null()]),
});
const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

export const thresholdRoutes: FastifyPluginAsyncTypebox<{ thresholds: ThresholdsStore }> = async (
  app,
  { thresholds },
) => {
  app.get(
    '/authority/thresholds/:tenantId',
    {
      config: needs('authority:policy:read'),
      schema: {
        tags: ['policy'],
        summary: 'Risk thresholds, modifiers and TTLs of the tenant (defaults until changed)',
        security: tenantSecurity,
        params: TenantParams,
        response: { 200: ThresholdsSchema, ...tenantErrors },
      },
    },
    async (request) => thresholds.read(principalOf(request).tenantId),
  );

  app.put(
    '/authority/thresholds/:tenantId',
    {
      config: needs('authority:thresholds:write'),
      schema: {
        tags: ['policy'],
        summary:
          'Change thresholds (fields optional; the merged record is validated); audited with old and new values',
        security: tenantSecurity,
        params: TenantParams,
        // The merged record is validated field by field in the domain, with precise messages.
        body: Type.Record(Type.String(), Type.Unknown()),
        response: { 200: ThresholdsSchema, ...tenantErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return thresholds.update(principal.tenantId, principal, request.body);
    },
  );
};
