import { Counter, Gauge, type Registry } from 'prom-client';
import type { Storage } from '../storage/database.js';
import { deliveryRepository } from './delivery-repository.js';
import type { DeliveryWorker } from './delivery-worker.js';
import type { RecordedStatus } from './record-attempt.js';

/** `authority_webhook_deliveries_total{status}`: recorded attempts by resulting status, never by tenant. */
export function countWebhookDeliveries(registry: Registry, worker: DeliveryWorker): void {
  const counter = new Counter({
    name: 'authority_webhook_deliveries_total',
    help: 'Webhook delivery attempts by resulting delivery status (succeeded, retrying, dead), never by tenant',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  for (const status of ['succeeded', 'retrying', 'dead'] satisfies RecordedStatus[])
    counter.inc({ status }, 0);
  worker.onAttempt((status) => counter.inc({ status }));
}

/**
 * Read at each scrape, over every tenant: `authority_webhook_backlog{status}` (deliveries waiting to
 * be sent: pending, retrying) and `authority_webhook_dead_letters` (deliveries that exhausted their
 * retries). A scrape while the database is down leaves these series out.
 */
export function observeWebhookOutbox(registry: Registry, storage: Storage): void {
  // Each gauge reads on its own: a grouped count per scrape.
  const read = () => deliveryRepository.countByStatus(storage.db).catch(() => undefined);
  new Gauge({
    name: 'authority_webhook_backlog',
    help: 'Webhook deliveries waiting to be sent, by status (pending, retrying), over every tenant',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const byStatus = await read();
      this.reset();
      if (byStatus === undefined) return;
      for (const status of ['pending', 'retrying']) this.set({ status }, byStatus[status] ?? 0);
    },
  });
  new Gauge({
    name: 'authority_webhook_dead_letters',
    help: 'Webhook deliveries that exhausted their retries (status dead), over every tenant',
    registers: [registry],
    async collect() {
      const byStatus = await read();
      this.reset();
      // reset() leaves an unlabelled gauge at 0: remove() takes that series out.
      if (byStatus === undefined) this.remove();
      else this.set(byStatus.dead ?? 0);
    },
  });
}
