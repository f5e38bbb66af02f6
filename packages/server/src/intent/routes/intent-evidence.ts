import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IdParams, IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import type { IntentEvidence } from '../use-cases/intent-evidence.js';

const Entry = Type.Object({
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
const errors = { ...tenantErrors, 409: tenantErrors[404] };

export const intentEvidenceRoutes: FastifyPluginAsyncTypebox<{ intentEvidence: IntentEvidence }> = async (
  app,
  { intentEvidence },
) => {
  app.get(
    '/intent/:id/evidence-bundle',
    {
      config: needs('intent:read'),
      schema: {
        tags: ['intents'],
        summary: "The intent's audit entries with an integrity hash and the tenant's HMAC signature",
        security: tenantSecurity,
        params: IdParams,
        response: {
          200: Type.Object({
            intentId: Type.String(),
            tenantId: Type.String(),
            events: Type.Array(Entry),
            integrityHash: Type.String(),
            signature: Type.String(),
            secretId: Type.String(),
            generatedAt: IsoDateTime,
          }),
          ...errors,
        },
      },
    },
    async (request) => intentEvidence.evidenceBundle(principalOf(request).tenantId, request.params.id),
  );

  app.get(
    '/intent/:id/receipt',
    {
      config: needs('intent:read'),
      schema: {
        tags: ['intents'],
        summary:
          'Offline-verifiable receipt: token, entries and a signed seal of the chain head (409 while pending)',
        security: tenantSecurity,
        params: IdParams,
        response: {
          200: Type.Object({
            receiptVersion: Type.Literal(1),
            intentId: Type.String(),
            tenantId: Type.String(),
            decision: Type.String(),
            token: Type.Union([Type.String(), Type.Null()]),
            entries: Type.Array(Entry),
            seal: Type.Object({
              tenantId: Type.String(),
              intentId: Type.String(),
              entryHashes: Type.Array(Type.String()),
              headIndex: Type.Integer(),
              headHash: Type.String(),
              issuedAt: IsoDateTime,
              signature: Type.String(),
            }),
            jwks: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
          }),
          ...errors,
        },
      },
    },
    async (request) => intentEvidence.receipt(principalOf(request).tenantId, request.params.id),
  );
};
