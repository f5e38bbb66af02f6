import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime } from '../../http/schemas.js';
import { wireSchema } from '../../http/wire-schema.js';
import { checkIntentRequest } from '../domain/intent-request.js';
import { isInterpretable } from '../domain/interpret.js';
import type { PermissionEvaluation } from '../use-cases/permission-evaluation.js';

const _PermissionTokenSchema = Type.Object({
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
const _MatchedRule = Type.Object({ id: Type.String(), effect: Type.String(), priority: Type.Integer() });

export const authorityEvaluateRoutes: FastifyPluginAsyncTypebox<{
  permissionEvaluation: PermissionEvaluation;
}> = async (app, { permissionEvaluation }) => {
  app.post(
    '/authority/evaluate',
    {
      config: needs('authority:evaluate'),
      schema: wireSchema(WIRE_ROUTES.evaluateIntent),
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
      schema: wireSchema(WIRE_ROUTES.verifyPermissionToken),
    },
    async (request) => permissionEvaluation.verifyPermissionToken(principalOf(request), request.body.token),
  );
};
