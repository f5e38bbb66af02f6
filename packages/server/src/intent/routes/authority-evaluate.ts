import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import {
  ActorSchema,
  ArgsSchema,
  checkIntentRequest,
  ProposedActionSchema,
  RiskContextSchema,
  TargetSystemSchema,
} from '../domain/intent-request.js';
import { isInterpretable } from '../domain/interpret.js';
import type { PermissionEvaluation } from '../use-cases/permission-evaluation.js';

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

export const authorityEvaluateRoutes: FastifyPluginAsyncTypebox<{
  permissionEvaluation: PermissionEvaluation;
}> = async (app, { permissionEvaluation }) => {
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
      return permissionEvaluation.evaluate(principalOf(request), request.body);
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
    async (request) => permissionEvaluation.verifyPermissionToken(principalOf(request), request.body.token),
  );
};
