import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Storage } from '../storage/database.js';

/**
 * Latency buckets for a millisecond-scale path: a decision takes about a millisecond, so the
 * buckets are fine from 0.25 ms to 25 ms and coarse beyond, up to the 5 s database bound.
 */
export const LATENCY_BUCKETS_SECONDS = [
  0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** One registry per server instance, so several servers in one process (tests) do not collide. */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  /** `POST /intent` decisions; the physical surface's counter has the same `decision` label. */
  decisions: Counter<'decision'>;
}

export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  // Node's standard process and runtime series under their usual names (process_*, nodejs_*),
  // so stock Node.js dashboards work; the service's own series all start with authority_.
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'authority_http_requests_total',
    help: 'HTTP requests by route template and status (never by tenant)',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'authority_http_request_duration_seconds',
    help: 'HTTP request latency by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'authority_decisions_total',
    help: 'POST /intent decisions by outcome (decision: APPROVED, ESCALATED, DENIED), never by tenant',
    labelNames: ['decision'] as const,
    registers: [registry],
  });
  // Every outcome from 0, so a dashboard shows 0 before the first decision of a kind, not "No data".
  for (const decision of ['APPROVED', 'ESCALATED', 'DENIED'] as const) decisions.inc({ decision }, 0);
  return { registry, requests, duration, decisions };
}

/**
 * The database pool, read at each scrape (PostgreSQL): connections by state, the pool's size,
 * callers waiting for a connection now, and the connections handed out and the seconds callers
 * waited for them since start (average wait = rate of the second over rate of the first). SQLite
 * has one in-process connection and no pool: it reports none of these.
 */
export function observePool(registry: Registry, storage: Storage): void {
  const stats = storage.poolStats?.bind(storage);
  if (stats === undefined) return;
  new Gauge({
    name: 'authority_db_pool_connections',
    help: 'Database pool connections by state (idle, used)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const now = stats();
      this.set({ state: 'idle' }, now.idle);
      this.set({ state: 'used' }, now.total - now.idle);
    },
  });
  new Gauge({
    name: 'authority_db_pool_max_connections',
    help: 'Database pool size: the most connections it opens',
    registers: [registry],
    collect() {
      this.set(stats().max);
    },
  });
  new Gauge({
    name: 'authority_db_pool_waiting',
    help: 'Callers waiting for a database connection now',
    registers: [registry],
    collect() {
      this.set(stats().waiting);
    },
  });
  new Counter({
    name: 'authority_db_pool_acquires_total',
    help: 'Database connections handed out by the pool',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().acquired);
    },
  });
  new Counter({
    name: 'authority_db_pool_wait_seconds_total',
    help: 'Seconds callers spent waiting for a database connection',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().seconds);
    },
  });
}
