import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors } from '../../http/schemas.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { IntentEvidence } from '../use-cases/intent-evidence.js';

const _Entry = Type.Object({
  index: Type.Integer(),
  tenantId: Type.String(),
  correlationId: Type.Union([Type.String(), Type.Null()]),
  intentId: Type.Union([Type.String(), Type.Null()]),
  actorId: Type.String(),
  actorType: Type.String(),
  eventType: Type.String(),
  payload: Type.Unknown(),
  previousHash: Type.String(),
  entryHash: Type.String(),
  createdAt: IsoDateTime,
});
const _errors = { ...tenantErrors, 409: tenantErrors[404] };

export const intentEvidenceRoutes: FastifyPluginAsyncTypebox<{ intentEvidence: IntentEvidence }> = async (
  app,
  { intentEvidence },
) => {
  app.get(
    '/intent/:id/evidence-bundle',
    {
      config: needs('intent:read'),
      schema: wireSchema(WIRE_ROUTES.getEvidenceBundle),
    },
    async (request) => intentEvidence.evidenceBundle(principalOf(request).tenantId, request.params.id),
  );

  app.get(
    '/intent/:id/receipt',
    {
      config: needs('intent:read'),
      schema: wireSchema(WIRE_ROUTES.getReceipt),
    },
    async (request) => intentEvidence.receipt(principalOf(request).tenantId, request.params.id),
  );
};
