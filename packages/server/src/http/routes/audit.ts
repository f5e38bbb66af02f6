import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditService } from '../../audit/audit-service.js';
import { AppError } from '../../errors/app-error.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.post(
    '/audit/verify-chain',
    {
      config: needs('audit:verify'),
      schema: wireSchema(WIRE_ROUTES.verifyChain),
    },
    async (request) => {
      const { from, to } = request.body;
      checkRange(from, to, '/to', 'to', 'from');
      const { newBreak: _recorded, ...result } = await audit.verifyChain(principalOf(request).tenantId, {
        from,
        to,
      });
      return result;
    },
  );

  app.post(
    '/audit/acknowledge-break',
    {
      config: needs('tenant:admin'),
      schema: wireSchema(WIRE_ROUTES.acknowledgeBreak),
    },
    async (request) => {
      const principal = principalOf(request);
      return audit.acknowledgeBreak(principal.tenantId, principal, request.body.brokenAt, request.body.note);
    },
  );

  app.get(
    '/audit/:tenantId/timeline',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.getTimeline),
    },
    async (request) => audit.timeline(principalOf(request).tenantId, request.query),
  );

  app.get(
    '/audit/:tenantId/export',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.exportAudit),
    },
    async (request, reply) => {
      const { fromIndex, toIndex } = request.query;
      checkRange(fromIndex, toIndex, 'querystring/toIndex', 'toIndex', 'fromIndex');
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .send(audit.exportStream(principalOf(request).tenantId, request.query));
    },
  );

  app.get(
    '/audit/:tenantId/checkpoints',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.listCheckpoints),
    },
    async (request) => {
      checkRange(request.query.from, request.query.to, 'querystring/to', 'to', 'from');
      return {
        checkpoints: await audit.checkpoints(principalOf(request).tenantId, {
          from: request.query.from,
          to: request.query.to,
          limit: request.query.limit ?? 100,
        }),
      };
    },
  );
};

/** An inclusive index range names its start first: a reversed one is 400, on every audit route. */
function checkRange(
  from: number | undefined,
  to: number | undefined,
  path: string,
  toName: string,
  fromName: string,
): void {
  if (from === undefined || to === undefined || from <= to) return;
  const message = `${toName} (${to}) is below ${fromName} (${from}): the range is inclusive, ${fromName} ≤ ${toName}`;
  throw new AppError('VALIDATION_ERROR', message, { issues: [{ path, message }] });
}
