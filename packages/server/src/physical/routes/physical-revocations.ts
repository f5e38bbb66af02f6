import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalRevocations } from '../use-cases/physical-revocations.js';

/** Revocation of physical tokens and the verifiers' revocation feed (document 02, contract §9). */
export const physicalRevocationRoutes: FastifyPluginAsyncTypebox<{
  revocations: PhysicalRevocations;
}> = async (app, { revocations }) => {
  app.post(
    '/physical/authority-tokens/:jti/revoke',
    {
      config: needs('physical:token:revoke'),
      schema: wireSchema(WIRE_ROUTES.revokePhysicalToken),
    },
    async (request) => {
      const principal = principalOf(request);
      return revocations.revoke(principal.tenantId, principal, request.params.jti, request.body.reason);
    },
  );

  app.get(
    '/physical/revocations',
    {
      config: needs('physical:revocations:read'),
      schema: wireSchema(WIRE_ROUTES.listRevocations),
    },
    async (request) => revocations.since(principalOf(request).tenantId, request.query.since ?? 0),
  );
};
