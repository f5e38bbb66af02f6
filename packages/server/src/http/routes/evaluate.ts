import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import {
  ActorSchema,
  ArgsSchema,
  checkIntentRequest,
  ProposedActionSchema,
  RiskContextSchema,
  TargetSystemSchema,
} from '../../intent/intent-request.js';
import { isInterpretable } from '../../intent/interpret.js';
import type { Services } from '../../services.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../schemas.js';

const PermissionTokenSchema = Type.Object({
  tokenId: Type.String(),
  tenantId: Type.String(),
  intentId: Type.String(),
  policyPack: Type.String(),
  ruleId: Type.String(),
  decision: Type.Enum(['allow', 'review', 'deny']),
  riskScore: Type.Number(),
  issuedAt: IsoDateTime,
  expiresAt: IsoDateTime,
  secretId: Type.String(),
  signature: Type.String(),
});
const MatchedRule = Type.Object({ id: Type.String(), effect: Type.String(), priority: Type.Integer() });

export const evaluateRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (
  app,
  { services },
) => {
  app.post(
    '/authority/evaluate',
    {
      config: needs('authority:evaluate'),
      schema: {
        tags: ['intents'],
        summary:
          'Evaluate without deciding: ALLOW, DENY, REQUIRE_APPROVAL or ESCALATE with a permission token (always 200)',
        security: tenantSecurity,
        body: Type.Object(
          {
            actor: ActorSchema,
            targetSystem: TargetSystemSchema,
            proposedAction: ProposedActionSchema,
            args: Type.Optional(ArgsSchema),
            riskContext: RiskContextSchema,
            oiCode: Type.Optional(Type.String({ pattern: '^OI-[0-9]{3,4}$' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            evaluationId: Type.String(),
            decision: Type.Enum(['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE']),
            riskScore: Type.Number(),
            matchedRules: Type.Array(MatchedRule),
            decidingRule: MatchedRule,
            rationale: Type.Array(Type.String()),
            gateTrace: Type.Array(Type.String()),
            explanation: Type.Array(Type.Unknown()),
            evaluatedAt: IsoDateTime,
            permissionToken: PermissionTokenSchema,
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) => {
      const issues = checkIntentRequest(request.body);
      if (issues.length > 0) throw validationError(issues);
      if (!isInterpretable(request.body.proposedAction)) {
        throw new AppError('INVALID_INTENT', 'proposedAction must contain a letter or a digit');
      }
      return services.authorityEvaluate.evaluate(principalOf(request), request.body);
    },
  );

  app.post(
    '/authority/permission-tokens/verify',
    {
      config: needs('authority:evaluate'),
      schema: {
        tags: ['intents'],
        summary: 'Verify an Authority Permission Token (signature, tenant, expiry); always 200',
        security: tenantSecurity,
        body: Type.Object({ token: Type.Unknown() }, { additionalProperties: false }),
        response: {
          200: Type.Object({ valid: Type.Boolean(), reason: Type.Optional(Type.String()) }),
          ...tenantErrors,
        },
      },
    },
    async (request) =>
      services.authorityEvaluate.verifyPermissionToken(principalOf(request), request.body.token),
  );
};
