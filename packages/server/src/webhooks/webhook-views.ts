import { randomBytes } from 'node:crypto';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../storage/schema.js';

export type EndpointStatus = 'active' | 'disabled';
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'dead';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying', 'succeeded', 'dead'];

/** An endpoint as the API shows it (contract §7); the secret appears only on creation and rotation. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  status: EndpointStatus;
  description: string | null;
  /** Why the endpoint is disabled (a 410 from the receiver, or a user), else null. */
  disabledReason: string | null;
  createdAt: string;
}

export interface WebhookDeliveryView {
  id: string;
  eventId: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function endpointView(row: WebhookEndpointsTable): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    status: row.status as EndpointStatus,
    description: row.description,
    disabledReason: row.disabled_reason,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export function deliveryView(row: WebhookDeliveriesTable): WebhookDeliveryView {
  const settled = row.status === 'succeeded' || row.status === 'dead';
  return {
    id: row.id,
    eventId: row.event_id,
    event: row.event,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: settled ? null : iso(row.next_attempt_at),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** `whsec_` + 32 random bytes, base64url (contract §0). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Additional data binding a sealed secret to its endpoint row. */
export const secretContext = (tenantId: string, endpointId: string): string =>
  `webhook-secret:${tenantId}:${endpointId}`;
