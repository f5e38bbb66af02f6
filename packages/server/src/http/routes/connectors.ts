import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const connectorRoutes: FastifyPluginAsyncTypebox<{ connectors: ConnectorService }> = async (
  app,
  { connectors },
) => {
  app.post(
    '/connectors',
    {
      config: needs('connectors:write'),
      schema: wireSchema(WIRE_ROUTES.createConnector),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const created = await connectors.create(principal.tenantId, principal, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/connectors',
    {
      config: needs('connectors:read'),
      schema: wireSchema(WIRE_ROUTES.listConnectors),
    },
    async (request) => ({ connectors: await connectors.list(principalOf(request).tenantId) }),
  );

  app.delete(
    '/connectors/:id',
    {
      config: needs('connectors:write'),
      schema: wireSchema(WIRE_ROUTES.deleteConnector),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await connectors.remove(principal.tenantId, principal, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/connectors/:id/test',
    {
      config: needs('connectors:test'),
      schema: wireSchema(WIRE_ROUTES.testConnector),
    },
    async (request) => connectors.test(principalOf(request).tenantId, request.params.id),
  );
};
