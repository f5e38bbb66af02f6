import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.js';
import { decodeIdCursor, nextIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalAudit } from '../use-cases/physical-audit.js';
import { DEFAULT_PAGE_LIMIT } from './physical-schemas.js';

/** The physical audit records and the edge verifiers' reports (document 02 "Audit", contract §9). */
export const physicalAuditRoutes: FastifyPluginAsyncTypebox<{ audit: PhysicalAudit }> = async (
  app,
  { audit },
) => {
  app.get(
    '/physical/audit',
    {
      config: needs('physical:audit:read'),
      schema: wireSchema(WIRE_ROUTES.listPhysicalAudit),
    },
    async (request) => {
      const { limit, cursor, oiCode, actorIdentity } = request.query;
      const page = await audit.list(principalOf(request).tenantId, {
        limit: limit ?? DEFAULT_PAGE_LIMIT,
        before: decodeIdCursor(cursor),
        oiCode,
        actorIdentity,
      });
      return {
        entries: page.entries,
        nextCursor: nextIdCursor(page.entries, page.hasMore, (e) => e.decisionId),
      };
    },
  );

  app.get(
    '/physical/audit/:jti',
    {
      config: needs('physical:audit:read'),
      schema: wireSchema(WIRE_ROUTES.getPhysicalAudit),
    },
    async (request) => {
      const entry = await audit.get(principalOf(request).tenantId, request.params.jti);
      if (!entry) throw new AppError('NOT_FOUND', 'No token with this jti was issued');
      return entry;
    },
  );

  app.post(
    '/physical/audit/:jti/verifications',
    {
      config: needs('physical:audit:report'),
      schema: wireSchema(WIRE_ROUTES.reportVerification),
    },
    async (request) => {
      const principal = principalOf(request);
      const { jti } = request.params;
      return {
        tokenJti: jti,
        verification: await audit.reportOne(principal.tenantId, principal, jti, request.body),
      };
    },
  );

  app.post(
    '/physical/verifications',
    {
      config: needs('physical:audit:report'),
      schema: wireSchema(WIRE_ROUTES.reportVerifications),
    },
    async (request) => {
      const principal = principalOf(request);
      return audit.reportMany(principal.tenantId, principal, request.body.reports);
    },
  );
};
