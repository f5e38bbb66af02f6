import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { Nullable, tenantSecurity } from '../../http/schemas.js';
import type { PhysicalPolicyStore } from '../use-cases/physical-policy-store.js';
import { Millis, physicalErrors } from './physical-schemas.js';

const PolicyDocumentView = Type.Unknown({
  description: 'The policy document {description?, clauses: [...]} (docs/physical.md "Clause policies")',
});

/** Tenant physical policies: versioned uploads, one active, the default as version 0 (document 02, contract §9). */
export const physicalPolicyRoutes: FastifyPluginAsyncTypebox<{ policies: PhysicalPolicyStore }> = async (
  app,
  { policies },
) => {
  app.post(
    '/physical/policy',
    {
      config: needs('physical:policy:write'),
      schema: {
        tags: ['physical'],
        summary: 'Upload a policy as the next version; activate (default false) makes it the active one',
        security: tenantSecurity,
        body: Type.Object(
          {
            policy: Type.Unknown({ description: 'A document {description?, clauses: [...]}' }),
            activate: Type.Optional(Type.Boolean({ description: 'Default false' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            id: Type.String({ description: 'UUIDv7 of the upload' }),
            version: Type.Integer({ minimum: 1 }),
            active: Type.Boolean(),
          }),
          ...physicalErrors,
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return policies.upload(principal.tenantId, principal, request.body);
    },
  );

  app.get(
    '/physical/policy',
    {
      config: needs('physical:policy:read'),
      schema: {
        tags: ['physical'],
        summary: 'The active policy; the default policy is version 0 with activatedAt null',
        security: tenantSecurity,
        response: {
          200: Type.Object({
            active: PolicyDocumentView,
            version: Type.Integer({ minimum: 0 }),
            activatedAt: Nullable(Millis),
          }),
          ...physicalErrors,
        },
      },
    },
    async (request) => policies.activeView(principalOf(request).tenantId),
  );
};
