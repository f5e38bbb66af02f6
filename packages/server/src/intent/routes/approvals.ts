import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError, validationError } from '../../errors/app-error.js';
import { decodeIdCursor, encodeIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import { checkIdempotencyKey } from '../../request-checks/idempotency-key.js';
import type { Approvals } from '../use-cases/approvals.js';

/** Human review of escalated intents (contract §4.8). */
export const approvalRoutes: FastifyPluginAsyncTypebox<{ approvals: Approvals }> = async (
  app,
  { approvals },
) => {
  app.post(
    '/authority/approval',
    {
      config: needs('authority:approve'),
      schema: wireSchema(WIRE_ROUTES.decideApproval),
    },
    async (request) => approvals.decide(principalOf(request), request.body),
  );

  app.get(
    '/authority/approvals',
    {
      config: needs('authority:approve'),
      schema: wireSchema(WIRE_ROUTES.listApprovals),
    },
    async (request) => {
      const { cursor, status, queue } = request.query;
      const before = decodeIdCursor(cursor);
      const limit = request.query.limit ?? 50;
      const page = await approvals.list(principalOf(request).tenantId, {
        status: status ?? 'pending',
        queue,
        before,
        limit,
      });
      const last = page.approvals[page.approvals.length - 1];
      return {
        approvals: page.approvals,
        nextCursor: page.hasMore && last ? encodeIdCursor(last.intentId) : null,
      };
    },
  );

  app.get(
    '/authority/approvals/:escalationId',
    {
      config: needs('authority:approve'),
      schema: wireSchema(WIRE_ROUTES.getApproval),
    },
    async (request) => {
      const detail = await approvals.get(principalOf(request).tenantId, request.params.escalationId);
      if (!detail) throw new AppError('NOT_FOUND', 'No such escalation');
      return detail;
    },
  );

  app.post(
    '/intent/:id/token',
    {
      config: needs('intent:create'),
      schema: wireSchema(WIRE_ROUTES.fetchIntentToken),
    },
    async (request) => {
      const key = request.headers['idempotency-key'];
      const keyIssues = checkIdempotencyKey(key);
      if (keyIssues.length > 0) throw validationError(keyIssues);
      const idempotencyKey = typeof key === 'string' ? key : undefined;
      return approvals.issueToken(principalOf(request), request.params.id, idempotencyKey);
    },
  );
};
