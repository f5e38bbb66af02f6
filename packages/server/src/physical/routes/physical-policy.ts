import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalPolicyStore } from '../use-cases/physical-policy-store.js';

/**
 * The upload's body as the route reads it: `policy` is checked by the domain validator
 * (`validate-physical-policy.ts`), whose 400 names the clause path (`/policy/clauses/0/safeDefault`);
 * the wire's full document schema would answer first with a JSON Schema path instead.
 */
const UploadBody = Type.Object(
  { policy: Type.Unknown(), activate: WIRE_ROUTES.uploadPhysicalPolicy.schema.body.properties.activate },
  { additionalProperties: false },
);

/** Tenant physical policies: versioned uploads, one active, the default as version 0 (document 02, contract §9). */
export const physicalPolicyRoutes: FastifyPluginAsyncTypebox<{ policies: PhysicalPolicyStore }> = async (
  app,
  { policies },
) => {
  app.post(
    '/physical/policy',
    {
      config: needs('physical:policy:write'),
      schema: { ...wireSchema(WIRE_ROUTES.uploadPhysicalPolicy), body: UploadBody },
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
      schema: wireSchema(WIRE_ROUTES.getPhysicalPolicy),
    },
    async (request) => policies.activeView(principalOf(request).tenantId),
  );
};
