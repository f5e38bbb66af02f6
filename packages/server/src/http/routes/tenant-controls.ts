import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TenantControls } from '../../tenancy/tenant-controls.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const tenantControlRoutes: FastifyPluginAsyncTypebox<{ controls: TenantControls }> = async (
  app,
  { controls },
) => {
  app.put(
    '/authority/kill-switch/:tenantId',
    {
      config: needs('authority:killswitch:write'),
      schema: wireSchema(WIRE_ROUTES.setKillSwitch),
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
      schema: wireSchema(WIRE_ROUTES.setFloor),
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
      schema: wireSchema(WIRE_ROUTES.listAuthorityActors),
    },
    async (request) => ({ actors: await controls.actors(principalOf(request).tenantId) }),
  );

  app.put(
    '/authority/actors/:actorId',
    {
      config: needs('authority:policy:write'),
      schema: wireSchema(WIRE_ROUTES.setAuthorityActor),
    },
    async (request) => {
      const principal = principalOf(request);
      return controls.setActor(principal.tenantId, principal, request.params.actorId, request.body);
    },
  );
};
