import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import { EVALUATE_ALTERNATIVE_SHAPE_MESSAGE } from '../domain/intent-request.js';
import type { PermissionEvaluation } from '../use-cases/permission-evaluation.js';
import { intentRefusal } from './intent-refusal.js';

export const authorityEvaluateRoutes: FastifyPluginAsyncTypebox<{
  permissionEvaluation: PermissionEvaluation;
}> = async (app, { permissionEvaluation }) => {
  app.post(
    '/authority/evaluate',
    {
      config: needs('authority:evaluate'),
      schema: wireSchema(WIRE_ROUTES.evaluateIntent),
      // Refused in the order POST /intent refuses (the other request shape explained first).
      attachValidation: true,
    },
    async (request) => {
      const refusal = intentRefusal(
        request.body,
        request.validationError,
        EVALUATE_ALTERNATIVE_SHAPE_MESSAGE,
      );
      if (refusal !== undefined) throw refusal;
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
