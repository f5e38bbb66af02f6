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
      if (from !== undefined && to !== undefined && from > to) {
        const message = `to (${to}) is below from (${from}): the range is inclusive, from ≤ to`;
        throw new AppError('VALIDATION_ERROR', message, { issues: [{ path: '/to', message }] });
      }
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
    async (request, reply) =>
      reply
        .type('application/x-ndjson; charset=utf-8')
        .send(audit.exportStream(principalOf(request).tenantId, request.query)),
  );

  app.get(
    '/audit/:tenantId/checkpoints',
    {
      config: needs('audit:read'),
      schema: wireSchema(WIRE_ROUTES.listCheckpoints),
    },
    async (request) => ({
      checkpoints: await audit.checkpoints(principalOf(request).tenantId, {
        from: request.query.from,
        to: request.query.to,
        limit: request.query.limit ?? 100,
      }),
    }),
  );
};
