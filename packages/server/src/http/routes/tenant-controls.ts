import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { TenantControls } from '../../tenancy/tenant-controls.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { IsoDateTime, Nullable, tenantErrors, tenantSecurity } from '../schemas.js';

const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });
const ActorSchema = Type.Object({
  actorId: Type.String(),
  status: Type.Enum(['active', 'blocked']),
  reason: Nullable(Type.String()),
  updatedAt: IsoDateTime,
  updatedBy: Type.String(),
});

export const tenantControlRoutes: FastifyPluginAsyncTypebox<{ controls: TenantControls }> = async (
  app,
  { controls },
) => {
  app.put(
    '/authority/kill-switch/:tenantId',
    {
      config: needs('authority:killswitch:write'),
      schema: {
        tags: ['tenancy'],
        summary: 'Turn the tenant kill switch on (every intent DENIED at gate kill_switch) or off; audited',
        security: tenantSecurity,
        params: TenantParams,
        body: Type.Object(
          { enabled: Type.Boolean(), reason: Type.Optional(Type.String({ maxLength: 500 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            enabled: Type.Boolean(),
            reason: Nullable(Type.String()),
            changedBy: Nullable(Type.String()),
            changedAt: Nullable(IsoDateTime),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return controls.setKillSwitch(principal.tenantId, principal, request.body);
    },
  );

  app.put(
    '/authority/floor/:tenantId',
    {
      config: needs('authority:floor:write'),
      schema: {
        tags: ['policy'],
        summary:
          'Disable (with the agreement version) or re-enable the catastrophic floor; owner only, audited',
        security: tenantSecurity,
        params: TenantParams,
        body: Type.Object(
          { enabled: Type.Boolean(), agreementVersion: Type.Optional(Type.String({ maxLength: 40 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            tenantId: Type.String(),
            enabled: Type.Boolean(),
            agreementVersion: Nullable(Type.String()),
            changedBy: Nullable(Type.String()),
            changedAt: Nullable(IsoDateTime),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return controls.setFloor(principal.tenantId, principal, request.body);
    },
  );

  app.get(
    '/authority/actors',
    {
      config: needs('authority:policy:read'),
      schema: {
        tags: ['policy'],
        summary: "The tenant's actor list (blocked actors are DENIED at gate rbac)",
        security: tenantSecurity,
        response: { 200: Type.Object({ actors: Type.Array(ActorSchema) }), ...tenantErrors },
      },
    },
    async (request) => ({ actors: await controls.actors(principalOf(request).tenantId) }),
  );

  app.put(
    '/authority/actors/:actorId',
    {
      config: needs('authority:policy:write'),
      schema: {
        tags: ['policy'],
        summary: 'Block or re-activate an actor; audited',
        security: tenantSecurity,
        params: Type.Object({ actorId: Type.String({ minLength: 1, maxLength: 200 }) }),
        body: Type.Object(
          {
            status: Type.Enum(['active', 'blocked']),
            reason: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ActorSchema, ...tenantErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return controls.setActor(principal.tenantId, principal, request.params.actorId, request.body);
    },
  );
};
