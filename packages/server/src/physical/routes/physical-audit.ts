import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import { decodeIdCursor, nextIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { Nullable, tenantSecurity } from '../../http/schemas.js';
import { SAFE_DEFAULTS } from '../domain/index.js';
import { MAX_REPORTS_PER_BATCH, VerificationReportSchema } from '../domain/verification-report.js';
import type { PhysicalAudit } from '../use-cases/physical-audit.js';
import {
  DEFAULT_PAGE_LIMIT,
  IdSegment,
  Millis,
  PageQuery,
  physicalErrors,
  StructuredGoalView,
} from './physical-schemas.js';

const VerificationSchema = Type.Object({
  atMs: Millis,
  edgeNodeId: Type.String(),
  result: Type.Enum(['accepted', 'rejected']),
  reason: Type.Optional(Type.String()),
});

const AuditEntrySchema = Type.Object({
  decisionId: Type.String(),
  tokenJti: Nullable(Type.String({ description: 'Set for issued tokens (ALLOW) only' })),
  tenantId: Type.String(),
  issuedAtMs: Millis,
  expiresAtMs: Nullable(Millis),
  actorIdentity: Type.String(),
  oiCode: Type.String(),
  decision: Type.Enum(['ALLOW', 'ESCALATE', 'DENY']),
  structuredGoal: StructuredGoalView,
  dagNode: Type.Unknown(),
  physicalStateRef: Nullable(Type.String()),
  physicalState: Type.Unknown({ description: 'The snapshot under physicalStateRef, or null' }),
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String()),
  verifications: Type.Array(VerificationSchema),
  correlationId: Type.String(),
  safeDefault: Type.Enum(SAFE_DEFAULTS),
  clauseId: Nullable(Type.String()),
  clauseIds: Type.Array(Type.String()),
  escalationTicketId: Nullable(Type.String()),
  operatorTicketId: Nullable(Type.String()),
  revocation: Nullable(Type.Object({ revokedAtMs: Millis, reason: Type.String() })),
});

const JtiParams = Type.Object({ jti: IdSegment });

/** The physical audit records and the edge verifiers' reports (document 02 "Audit", contract §9). */
export const physicalAuditRoutes: FastifyPluginAsyncTypebox<{ audit: PhysicalAudit }> = async (
  app,
  { audit },
) => {
  app.get(
    '/physical/audit',
    {
      config: needs('physical:audit:read'),
      schema: {
        tags: ['physical'],
        summary: 'Every physical decision (ALLOW, ESCALATE, DENY), newest first',
        security: tenantSecurity,
        querystring: Type.Object(
          {
            ...PageQuery,
            oiCode: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
            actorIdentity: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ entries: Type.Array(AuditEntrySchema), nextCursor: Nullable(Type.String()) }),
          ...physicalErrors,
        },
      },
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
      schema: {
        tags: ['physical'],
        summary: 'The audit entry of one issued token, with its verification reports',
        security: tenantSecurity,
        params: JtiParams,
        response: { 200: AuditEntrySchema, ...physicalErrors },
      },
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
      schema: {
        tags: ['physical'],
        summary: "An edge verifier's report about one token; appended to the entry and to the chain",
        security: tenantSecurity,
        params: JtiParams,
        body: VerificationReportSchema,
        response: {
          200: Type.Object({ tokenJti: Type.String(), verification: VerificationSchema }),
          ...physicalErrors,
        },
      },
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
      schema: {
        tags: ['physical'],
        summary:
          'Reports about several tokens (at most 500); each malformed or unknown report is refused by index, the others recorded',
        security: tenantSecurity,
        body: Type.Object(
          {
            reports: Type.Array(
              Type.Unknown({ description: '{jti, edgeNodeId, result: accepted | rejected, reason?, atMs}' }),
              { maxItems: MAX_REPORTS_PER_BATCH },
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            accepted: Type.Integer(),
            rejected: Type.Array(
              Type.Object({ index: Type.Integer(), code: Type.Enum(['validation_error', 'not_found']) }),
            ),
          }),
          ...physicalErrors,
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return audit.reportMany(principal.tenantId, principal, request.body.reports);
    },
  );
};
