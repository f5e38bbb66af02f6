import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { IntentEvidence } from '../use-cases/intent-evidence.js';

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
    async (request) => {
      const principal = principalOf(request);
      return intentEvidence.receipt(principal.tenantId, request.params.id, principal.id);
    },
  );
};
