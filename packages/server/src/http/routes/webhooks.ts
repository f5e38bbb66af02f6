import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WebhookEndpoints } from '../../webhooks/endpoint-service.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookEndpoints }> = async (
  app,
  { webhooks },
) => {
  const config = needs('webhooks:manage');

  app.post(
    '/webhooks',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.createWebhook),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const created = await webhooks.create(principal.tenantId, principal, request.body);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/webhooks',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.listWebhooks),
    },
    async (request) => ({ webhooks: await webhooks.list(principalOf(request).tenantId) }),
  );

  app.get(
    '/webhooks/:id',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.getWebhook),
    },
    async (request) => webhooks.get(principalOf(request).tenantId, request.params.id),
  );

  app.patch(
    '/webhooks/:id',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.updateWebhook),
    },
    async (request) => {
      const principal = principalOf(request);
      return webhooks.update(principal.tenantId, principal, request.params.id, request.body);
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.deleteWebhook),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await webhooks.remove(principal.tenantId, principal, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.rotateWebhookSecret),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const rotated = await webhooks.rotateSecret(principal.tenantId, principal, request.params.id);
      return reply.header('cache-control', 'no-store').send(rotated);
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.listWebhookDeliveries),
    },
    async (request) => webhooks.deliveries(principalOf(request).tenantId, request.params.id, request.query),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config,
      schema: wireSchema(WIRE_ROUTES.redeliverWebhookDelivery),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const queued = await webhooks.redeliver(
        principal.tenantId,
        principal,
        request.params.id,
        request.params.deliveryId,
      );
      return reply.code(202).send(queued);
    },
  );
};
