import type { Clock } from '../foundation/clock.js';
import { createPoller } from '../foundation/poller.js';
import type { Storage } from '../storage/database.js';
import type { Connector } from './connector.js';
import { connectorRepository } from './connector-repository.js';

/**
 * The background health check (contract §8): every CONNECTOR_HEALTH_INTERVAL_MS each connector gets
 * one real round trip, recorded as its status. Every instance runs a checker; a check is claimed by
 * moving the connector's `next_check_at` forward with a compare-and-set, so N instances still probe
 * each connector once per interval.
 */
export function createHealthChecker(deps: {
  storage: Storage;
  clock: Clock;
  /** CONNECTOR_HEALTH_INTERVAL_MS. */
  intervalMs: number;
  check: (connector: Connector) => Promise<unknown>;
  /** Checks started per round; a full round is followed at once by another. */
  batchSize?: number;
  onError: (error: unknown) => void;
}) {
  const { storage, clock, intervalMs, check } = deps;
  const batchSize = deps.batchSize ?? 20;

  /** One round: claims the checks due now and runs them; resolves with the number run. */
  async function runOnce(): Promise<number> {
    const now = clock();
    const due = await connectorRepository.due(storage.db, now, batchSize);
    const claimed: Connector[] = [];
    for (const check of due) {
      if (await connectorRepository.claim(storage.db, check, now + intervalMs)) claimed.push(check.connector);
    }
    const results = await Promise.allSettled(claimed.map((connector) => check(connector)));
    for (const result of results) if (result.status === 'rejected') deps.onError(result.reason);
    return claimed.length;
  }

  const poller = createPoller({ runOnce, batchSize, onError: deps.onError });

  return {
    runOnce,

    start: poller.start,
    stop: poller.stop,
  };
}

export type HealthChecker = ReturnType<typeof createHealthChecker>;
