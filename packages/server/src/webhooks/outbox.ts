import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../storage/database.js';
import type { WebhookDeliveriesTable } from '../storage/schema.js';
import { deliveryRepository } from './delivery-repository.js';
import { endpointRepository } from './endpoint-repository.js';
import { storedPayload, subscribes, type WebhookEvent } from './events.js';

export interface EnqueuedEvent {
  /** The event's id (UUIDv7), shared by its deliveries to every endpoint; receivers dedupe by it. */
  eventId: string;
  /** One delivery per active endpoint subscribed to the event kind; empty when none is. */
  deliveryIds: string[];
}

/**
 * Writes an event to the webhook outbox.
 *
 * Contract: call it with the OPEN write transaction (`trx` of `storage.writeTransaction`) of the
 * change the event reports, so the event commits if and only if the change does, and survives a
 * process that dies right after the commit (contract §7). It inserts one `pending` delivery, due at
 * once, for every active endpoint of `tenantId` subscribed to `event.event` (or to `*`), and does
 * nothing else: no network call, no audit entry, no lock beyond the inserted rows. The delivery
 * worker sends them after the commit. `event.occurredAt` (epoch ms, the transaction's `now`)
 * becomes the payload's `timestamp`. A rollback discards the deliveries with the change.
 */
export async function enqueueEvent(
  trx: Executor,
  tenantId: string,
  event: WebhookEvent,
): Promise<EnqueuedEvent> {
  const [enqueued] = await enqueueEvents(trx, tenantId, [event]);
  return enqueued as EnqueuedEvent;
}

/**
 * `enqueueEvent` for several events of one tenant (a group commit of decisions): the tenant's
 * endpoints are read once and every delivery is written in one statement.
 */
export async function enqueueEvents(
  trx: Executor,
  tenantId: string,
  events: readonly WebhookEvent[],
): Promise<EnqueuedEvent[]> {
  if (events.length === 0) return [];
  const subscriptions = await endpointRepository.activeSubscriptions(trx, tenantId);
  const rows: WebhookDeliveriesTable[] = [];
  const enqueued: EnqueuedEvent[] = [];
  for (const event of events) {
    const eventId = uuidv7();
    const targets = subscriptions.filter((endpoint) => subscribes(endpoint.events, event.event));
    const payload = targets.length > 0 ? JSON.stringify(storedPayload(eventId, tenantId, event)) : '';
    const deliveryIds: string[] = [];
    for (const endpoint of targets) {
      const id = uuidv7();
      deliveryIds.push(id);
      rows.push({
        tenant_id: tenantId,
        id,
        endpoint_id: endpoint.id,
        event_id: eventId,
        event: event.event,
        payload,
        status: 'pending',
        attempts: 0,
        next_attempt_at: event.occurredAt,
        last_status_code: null,
        last_error: null,
        lease_token: null,
        lease_until: null,
        created_at: event.occurredAt,
        updated_at: event.occurredAt,
      });
    }
    enqueued.push({ eventId, deliveryIds });
  }
  await deliveryRepository.insert(trx, rows);
  return enqueued;
}
