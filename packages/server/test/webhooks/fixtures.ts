import { createSecretBox } from '../../src/crypto/secret-box.js';
import { createEgressClient, type Resolver } from '../../src/egress/egress-client.js';
import type { Storage } from '../../src/storage/database.js';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import type { DecisionEvent } from '../../src/webhooks/events.js';
import { type EnqueuedEvent, enqueueEvent } from '../../src/webhooks/outbox.js';
import { type Headers, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';

export const SCHEDULE = [10_000, 30_000, 60_000] as const;

/** A delivery worker over the test app's storage and clock, with fixed jitter (half of each step). */
export function testWorker(
  t: TestApp,
  options: {
    storage?: Storage;
    clock?: () => number;
    resolver?: Resolver;
    timeoutMs?: number;
    batchSize?: number;
    errors?: unknown[];
  } = {},
): DeliveryWorker {
  return createDeliveryWorker({
    storage: options.storage ?? t.storage,
    clock: options.clock ?? t.clock,
    secretBox: createSecretBox(TEST_MASTER_KEY),
    egress: createEgressClient(t.config.egress, options.resolver),
    retryScheduleMs: SCHEDULE,
    timeoutMs: options.timeoutMs ?? 2_000,
    batchSize: options.batchSize ?? 25,
    random: () => 0.5,
    onError: (error) => {
      if (options.errors) options.errors.push(error);
      else throw error;
    },
  });
}

/** Registers an endpoint through the API; returns its id and secret. */
export async function createEndpoint(
  t: TestApp,
  headers: Headers,
  url: string,
  events: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/webhooks',
    headers,
    payload: { url, events },
  });
  if (response.statusCode !== 201) throw new Error(`webhook not created: ${response.body}`);
  return response.json();
}

/** Enqueues a decision event in its own committed transaction, as the decision loop will. */
export function enqueueDecision(
  t: TestApp,
  tenantId: string,
  event: Partial<DecisionEvent> = {},
): Promise<EnqueuedEvent> {
  return t.storage.writeTransaction((trx) =>
    enqueueEvent(trx, tenantId, {
      event: 'decision.completed',
      intentId: '0196a1b2-0000-7000-8000-0000000000aa',
      decision: 'APPROVED',
      riskScore: 12,
      occurredAt: t.clock(),
      ...event,
    }),
  );
}

export async function deliveryRow(t: TestApp, tenantId: string, id: string) {
  return t.storage.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}
