import { Counter, type Registry } from 'prom-client';
import type { DeliveryWorker } from './delivery-worker.js';

/** `authority_webhook_deliveries_total{status}`: recorded attempts by resulting status, never by tenant. */
export function countWebhookDeliveries(registry: Registry, worker: DeliveryWorker): void {
  const counter = new Counter({
    name: 'authority_webhook_deliveries_total',
    help: 'Webhook delivery attempts by resulting delivery status (succeeded, retrying, dead), never by tenant',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  worker.onAttempt((status) => counter.inc({ status }));
}
