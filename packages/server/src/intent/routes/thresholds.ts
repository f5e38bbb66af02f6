import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime } from '../../http/schemas.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { ThresholdsStore } from '../use-cases/thresholds-store.js';

const Modifiers = Type.Object({
  privileged: Type.Number(),
  production: Type.Number(),
  sensitive: Type.Number(),
});
const _ThresholdsSchema = Type.Object({
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
const _TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

export const thresholdRoutes: FastifyPluginAsyncTypebox<{ thresholds: ThresholdsStore }> = async (
  app,
  { thresholds },
) => {
  app.get(
    '/authority/thresholds/:tenantId',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.getThresholds),
    },
    async (request) => thresholds.read(principalOf(request).tenantId),
  );

  app.put(
    '/authority/thresholds/:tenantId',
    {
      config: needs('authority:thresholds:write'),
      schema: wireSchema(WIRE_ROUTES.updateThresholds),
    },
    async (request) => {
      const principal = principalOf(request);
      return thresholds.update(principal.tenantId, principal, request.body);
    },
  );
};
