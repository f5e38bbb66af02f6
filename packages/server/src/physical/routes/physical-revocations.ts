import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { tenantSecurity } from '../../http/schemas.js';
import type { PhysicalRevocations } from '../use-cases/physical-revocations.js';
import { REVOCATIONS_PAGE_LIMIT } from '../use-cases/physical-revocations.js';
import { IdSegment, Millis, physicalErrors } from './physical-schemas.js';

/** Revocation of physical tokens and the verifiers' revocation feed (document 02, contract §9). */
export const physicalRevocationRoutes: FastifyPluginAsyncTypebox<{
  revocations: PhysicalRevocations;
}> = async (app, { revocations }) => {
  app.post(
    '/physical/authority-tokens/:jti/revoke',
    {
      config: needs('physical:token:revoke'),
      schema: {
        tags: ['physical'],
        summary: 'Revoke an issued token; revoking it again answers the original revokedAtMs',
        security: tenantSecurity,
        params: Type.Object({ jti: IdSegment }),
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: 1000 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ tokenJti: Type.String(), revokedAtMs: Millis }),
          ...physicalErrors,
        },
      },
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
      schema: {
        tags: ['physical'],
        summary: `Revocations with revokedAtMs > since, oldest first, at most ${REVOCATIONS_PAGE_LIMIT}; poll again with since = asOfMs`,
        security: tenantSecurity,
        querystring: Type.Object(
          {
            since: Type.Optional(
              Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Default 0' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            revocations: Type.Array(
              Type.Object({ tokenJti: Type.String(), revokedAtMs: Millis, reason: Type.String() }),
            ),
            asOfMs: Millis,
            hasMore: Type.Boolean(),
            serverTimeMs: Millis,
          }),
          ...physicalErrors,
        },
      },
    },
    async (request) => revocations.since(principalOf(request).tenantId, request.query.since ?? 0),
  );
};
