import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { tenantSecurity } from '../../http/schemas.js';
import { normalizePhysicalState, PhysicalStateSchema } from '../domain/physical-state.js';
import type { PhysicalIdempotency } from '../use-cases/physical-idempotency.js';
import type { PhysicalSnapshots } from '../use-cases/physical-snapshots.js';
import { Millis, physicalErrors, sendOutcome } from './physical-schemas.js';

/** Snapshots of attested physical state recorded in the audit chain without a token (document 02). */
export const physicalSnapshotRoutes: FastifyPluginAsyncTypebox<{
  snapshots: PhysicalSnapshots;
  idempotency: PhysicalIdempotency;
}> = async (app, { snapshots, idempotency }) => {
  app.post(
    '/physical/snapshots',
    {
      config: needs('physical:snapshots:write'),
      schema: {
        tags: ['physical'],
        summary: 'Record a state snapshot in the audit chain; Idempotency-Key makes retries safe',
        security: tenantSecurity,
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 visible ASCII characters' })),
        }),
        body: Type.Object({ physicalState: PhysicalStateSchema }, { additionalProperties: false }),
        response: {
          200: Type.Object({ physicalStateRef: Type.String(), asOfTimestampMs: Millis }),
          ...physicalErrors,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const outcome = await idempotency.run(
        {
          tenantId: principal.tenantId,
          key: request.headers['idempotency-key'],
          route: 'POST /physical/snapshots',
          body: request.body,
          requestId: request.id,
        },
        async (scope) => {
          const state = normalizePhysicalState(request.body.physicalState);
          return snapshots.submit(principal.tenantId, principal, state, scope);
        },
      );
      return sendOutcome(reply, outcome);
    },
  );
};
