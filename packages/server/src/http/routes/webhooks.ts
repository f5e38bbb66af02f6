import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { WebhookEndpoints } from '../../webhooks/endpoint-service.js';
import { DELIVERIES_MAX_LIMIT } from '../../webhooks/endpoint-service.js';
import { ALL_EVENTS, WEBHOOK_EVENTS } from '../../webhooks/events.js';
import { DELIVERY_STATUSES } from '../../webhooks/webhook-views.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { ErrorResponse, IdParams, IsoDateTime, Nullable, tenantErrors, tenantSecurity } from '../schemas.js';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL of the receiver' });
const Events = Type.Array(Type.Enum([...WEBHOOK_EVENTS, ALL_EVENTS]), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  description: 'Event kinds to deliver, or ["*"] for all',
});
const Description = Type.String({ maxLength: 500 });
const EndpointStatus = Type.Enum(['active', 'disabled']);

const EndpointSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: EndpointStatus,
  description: Nullable(Type.String()),
  disabledReason: Nullable(Type.String()),
  createdAt: IsoDateTime,
});

const EndpointWithSecretSchema = Type.Object({
  ...EndpointSchema.properties,
  secret: Type.String({ description: 'whsec_…; shown only in this response' }),
});

const DeliverySchema = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  event: Type.String(),
  status: Type.Enum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Nullable(IsoDateTime),
  createdAt: IsoDateTime,
});

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookEndpoints }> = async (
  app,
  { webhooks },
) => {
  const config = needs('webhooks:manage');

  app.post(
    '/webhooks',
    {
      config,
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint; its secret is returned once',
        security: tenantSecurity,
        body: Type.Object(
          { url: Url, events: Events, description: Type.Optional(Description) },
          { additionalProperties: false },
        ),
        response: { 201: EndpointWithSecretSchema, 409: ErrorResponse, ...tenantErrors },
      },
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
      schema: {
        tags: ['webhooks'],
        summary: "The tenant's webhook endpoints (never the secrets)",
        security: tenantSecurity,
        response: { 200: Type.Object({ webhooks: Type.Array(EndpointSchema) }), ...tenantErrors },
      },
    },
    async (request) => ({ webhooks: await webhooks.list(principalOf(request).tenantId) }),
  );

  app.get(
    '/webhooks/:id',
    {
      config,
      schema: {
        tags: ['webhooks'],
        summary: 'One webhook endpoint (never the secret)',
        security: tenantSecurity,
        params: IdParams,
        response: { 200: EndpointSchema, ...tenantErrors },
      },
    },
    async (request) => webhooks.get(principalOf(request).tenantId, request.params.id),
  );

  app.patch(
    '/webhooks/:id',
    {
      config,
      schema: {
        tags: ['webhooks'],
        summary: 'Change the URL, events or description, or re-enable (or disable) the endpoint',
        security: tenantSecurity,
        params: IdParams,
        body: Type.Object(
          {
            url: Type.Optional(Url),
            events: Type.Optional(Events),
            description: Type.Optional(Nullable(Description)),
            status: Type.Optional(EndpointStatus),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: EndpointSchema, ...tenantErrors },
      },
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
      schema: {
        tags: ['webhooks'],
        summary: 'Delete the endpoint and its deliveries (queued ones are dropped)',
        security: tenantSecurity,
        params: IdParams,
        response: { 204: Type.Null(), ...tenantErrors },
      },
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
      schema: {
        tags: ['webhooks'],
        summary: 'Replace the signing secret; the new one is returned once and signs every later attempt',
        security: tenantSecurity,
        params: IdParams,
        response: { 200: EndpointWithSecretSchema, ...tenantErrors },
      },
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
      schema: {
        tags: ['webhooks'],
        summary: "The endpoint's deliveries, newest first, with keyset pagination",
        security: tenantSecurity,
        params: IdParams,
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DELIVERIES_MAX_LIMIT })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            deliveries: Type.Array(DeliverySchema),
            nextCursor: Nullable(Type.String()),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request) => webhooks.deliveries(principalOf(request).tenantId, request.params.id, request.query),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config,
      schema: {
        tags: ['webhooks'],
        summary: "Queue a delivery's event again (same eventId) as a new delivery, due at once",
        security: tenantSecurity,
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 100 }),
          deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        response: { 202: DeliverySchema, 409: ErrorResponse, ...tenantErrors },
      },
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
