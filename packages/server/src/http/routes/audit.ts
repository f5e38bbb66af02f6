import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AuditService } from '../../audit/audit-service.js';
import { TIMELINE_MAX_LIMIT } from '../../audit/audit-service.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../schemas.js';

const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });
/** Chain indexes are 32-bit integers in storage; a larger bound is refused here rather than by PostgreSQL. */
const Index = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

const CheckpointSchema = Type.Object({
  tenantId: Type.String(),
  index: Type.Integer(),
  entryHash: Type.String(),
  issuedAt: IsoDateTime,
  kid: Type.String(),
  signature: Type.String(),
});

const VerificationSchema = Type.Object({
  valid: Type.Boolean(),
  length: Type.Integer(),
  latestHash: Type.String(),
  verifiedAt: IsoDateTime,
  checkpointsVerified: Type.Integer(),
  brokenAt: Type.Optional(Type.Integer()),
  reason: Type.Optional(
    Type.Enum(['ENTRY_HASH_MISMATCH', 'PREVIOUS_HASH_MISMATCH', 'INDEX_GAP', 'CHECKPOINT_MISMATCH']),
  ),
});

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.post(
    '/audit/verify-chain',
    {
      config: needs('audit:verify'),
      schema: {
        tags: ['audit'],
        summary: "Verify the tenant's chain (or an inclusive index range) and its checkpoints",
        security: tenantSecurity,
        body: Type.Optional(
          Type.Object(
            { from: Type.Optional(Index), to: Type.Optional(Index) },
            { additionalProperties: false },
          ),
        ),
        response: { 200: VerificationSchema, ...tenantErrors },
      },
    },
    async (request) => {
      const { newBreak: _recorded, ...result } = await audit.verifyChain(principalOf(request).tenantId, {
        from: request.body.from,
        to: request.body.to,
      });
      return result;
    },
  );

  app.post(
    '/audit/acknowledge-break',
    {
      config: needs('tenant:admin'),
      schema: {
        tags: ['audit'],
        summary: 'Acknowledge an open chain break; recorded in the chain',
        security: tenantSecurity,
        body: Type.Object(
          { brokenAt: Index, note: Type.String({ minLength: 1, maxLength: 2000 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            brokenAt: Type.Integer(),
            reason: Type.String(),
            acknowledgedAt: IsoDateTime,
            acknowledgedBy: Type.String(),
            note: Type.String(),
            entryHash: Type.String(),
          }),
          ...tenantErrors,
        },
      },
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
      schema: {
        tags: ['audit'],
        summary: 'Timeline of audit events, newest first, with keyset pagination',
        security: tenantSecurity,
        params: TenantParams,
        querystring: Type.Object(
          {
            actorId: Type.Optional(Type.String({ maxLength: 200 })),
            targetSystem: Type.Optional(Type.String({ maxLength: 500 })),
            eventType: Type.Optional(Type.String({ maxLength: 100 })),
            from: Type.Optional(Type.String({ maxLength: 40 })),
            to: Type.Optional(Type.String({ maxLength: 40 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TIMELINE_MAX_LIMIT })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            events: Type.Array(
              Type.Object({
                index: Type.Integer(),
                eventType: Type.String(),
                actorId: Type.String(),
                targetSystem: Type.Union([Type.String(), Type.Null()]),
                intentId: Type.Union([Type.String(), Type.Null()]),
                correlationId: Type.Union([Type.String(), Type.Null()]),
                summary: Type.String(),
                createdAt: IsoDateTime,
                entryHash: Type.String(),
              }),
            ),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) => audit.timeline(principalOf(request).tenantId, request.query),
  );

  app.get(
    '/audit/:tenantId/export',
    {
      config: needs('audit:read'),
      schema: {
        tags: ['audit'],
        summary: 'NDJSON export of entries and checkpoints in an inclusive index range',
        security: tenantSecurity,
        params: TenantParams,
        querystring: Type.Object(
          { fromIndex: Type.Optional(Index), toIndex: Type.Optional(Index) },
          { additionalProperties: false },
        ),
      },
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
      schema: {
        tags: ['audit'],
        summary: 'Signed checkpoints of the chain head',
        security: tenantSecurity,
        params: TenantParams,
        querystring: Type.Object(
          {
            from: Type.Optional(Index),
            to: Type.Optional(Index),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ checkpoints: Type.Array(CheckpointSchema) }), ...tenantErrors },
      },
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
