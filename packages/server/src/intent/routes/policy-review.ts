import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import type { PolicyReviews } from '../use-cases/policy-reviews.js';
import { PolicyVersionSchema, view } from './policy.js';

const errors = { ...tenantErrors, 409: tenantErrors[404] };

export const policyReviewRoutes: FastifyPluginAsyncTypebox<{ reviews: PolicyReviews }> = async (
  app,
  { reviews },
) => {
  app.put(
    '/authority/policy-review/:tenantId',
    {
      config: needs('tenant:admin'),
      schema: {
        tags: ['policy'],
        summary:
          'Require (or stop requiring) review of new intent policy versions, with 1 or 2 approvals; owner only, audited',
        security: tenantSecurity,
        params: Type.Object({ tenantId: Type.String({ maxLength: 63 }) }),
        body: Type.Object(
          {
            required: Type.Boolean(),
            approvals: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            tenantId: Type.String(),
            required: Type.Boolean(),
            approvals: Type.Integer(),
            updatedAt: Type.Union([IsoDateTime, Type.Null()]),
            updatedBy: Type.Union([Type.String(), Type.Null()]),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) => reviews.setSetting(principalOf(request), request.body),
  );

  app.post(
    '/authority/policy/versions/:version/reviews',
    {
      config: needs('authority:policy:review'),
      schema: {
        tags: ['policy'],
        summary:
          "Approve or reject a policy version, with a comment; never the author's own (403 separation_of_duties)",
        security: tenantSecurity,
        params: Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
        body: Type.Object(
          {
            decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
            comment: Type.String({ maxLength: 2_000 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: PolicyVersionSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(view(await reviews.review(principalOf(request), request.params.version, request.body))),
  );
};
