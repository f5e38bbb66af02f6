import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import { normalizePhysicalState } from '../domain/physical-state.js';
import type { PhysicalIdempotency } from '../use-cases/physical-idempotency.js';
import type { PhysicalSnapshots } from '../use-cases/physical-snapshots.js';
import { sendOutcome } from './physical-schemas.js';

/** Snapshots of attested physical state recorded in the audit chain without a token (document 02). */
export const physicalSnapshotRoutes: FastifyPluginAsyncTypebox<{
  snapshots: PhysicalSnapshots;
  idempotency: PhysicalIdempotency;
}> = async (app, { snapshots, idempotency }) => {
  app.post(
    '/physical/snapshots',
    {
      config: needs('physical:snapshots:write'),
      schema: wireSchema(WIRE_ROUTES.recordSnapshot),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const outcome = await idempotency.run(
        {
          tenantId: principal.tenantId,
          principalId: principal.id,
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
