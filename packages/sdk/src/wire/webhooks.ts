import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import {
  ALL_WEBHOOK_EVENTS,
  DELIVERY_STATUSES,
  INTENT_OUTCOMES,
  WEBHOOK_ENDPOINT_STATUSES,
  WEBHOOK_EVENTS,
} from './constants.js';

/** Webhook endpoints, deliveries and the delivered payload (contract §7). */

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL of the receiver' });
const Events = Type.Array(Type.Enum([...WEBHOOK_EVENTS, ALL_WEBHOOK_EVENTS]), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  description: 'Event kinds to deliver, or ["*"] for all',
});
const Description = Type.String({ maxLength: 500 });

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Enum(WEBHOOK_ENDPOINT_STATUSES),
  description: Nullable(Type.String()),
  disabledReason: Nullable(Type.String()),
  createdAt: IsoDateTime,
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** An endpoint with its signing secret (`whsec_…`), shown only when created or rotated. */
export const WebhookEndpointWithSecret = Type.Object({
  ...WebhookEndpoint.properties,
  secret: Type.String({ description: 'whsec_…; shown only in this answer' }),
});
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookEndpoint) });
export type WebhookList = Static<typeof WebhookList>;

export const WebhookCreateRequest = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  Closed,
);
export type WebhookCreateRequest = Static<typeof WebhookCreateRequest>;

export const WebhookUpdateRequest = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Nullable(Description)),
    status: Type.Optional(Type.Enum(WEBHOOK_ENDPOINT_STATUSES)),
  },
  { ...Closed, minProperties: 1 },
);
export type WebhookUpdateRequest = Static<typeof WebhookUpdateRequest>;

export const WebhookDelivery = Type.Object({
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
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  Closed,
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const DeliveryList = Type.Object({
  deliveries: Type.Array(WebhookDelivery),
  nextCursor: Nullable(Type.String()),
});
export type DeliveryList = Static<typeof DeliveryList>;

export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});

/**
 * The JSON body of a webhook delivery. Verify it with `verifyWebhookSignature` over the raw body
 * before trusting it; dedupe by `eventId` (delivery is at least once).
 */
export const WebhookPayload = Type.Object({
  eventId: Type.String(),
  event: Type.String({
    description: `${WEBHOOK_EVENTS.join(', ')}; a receiver ignores kinds it does not know (more may come)`,
  }),
  tenantId: Type.String(),
  intentId: Nullable(Type.String({ description: 'null on chain.break' })),
  decision: Nullable(Type.String({ description: `${INTENT_OUTCOMES.join(', ')}; null on chain.break` })),
  riskScore: Nullable(Type.Number({ description: 'null on chain.break' })),
  brokenAt: Type.Optional(Type.Integer({ description: 'chain.break only: the first broken entry' })),
  reason: Type.Optional(Type.String({ description: 'chain.break, human denials and expiries' })),
  timestamp: Type.String({ description: 'When the event happened, ISO 8601 UTC' }),
  sentAt: Type.String({ description: 'When this attempt was sent, ISO 8601 UTC; signed' }),
  signature: Type.String({
    description: 'sha256= + hex HMAC-SHA256(secret, JCS(payload without signature))',
  }),
});
export type WebhookPayload = Static<typeof WebhookPayload>;
