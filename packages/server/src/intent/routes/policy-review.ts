import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PolicyReviews } from '../use-cases/policy-reviews.js';
import { view } from './policy.js';

export const policyReviewRoutes: FastifyPluginAsyncTypebox<{ reviews: PolicyReviews }> = async (
  app,
  { reviews },
) => {
  app.put(
    '/authority/policy-review/:tenantId',
    {
      config: needs('tenant:admin'),
      schema: wireSchema(WIRE_ROUTES.setPolicyReview),
    },
    async (request) => reviews.setSetting(principalOf(request), request.body),
  );

  app.post(
    '/authority/policy/versions/:version/reviews',
    {
      config: needs('authority:policy:review'),
      schema: wireSchema(WIRE_ROUTES.reviewPolicyVersion),
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(view(await reviews.review(principalOf(request), request.params.version, request.body))),
  );
};
