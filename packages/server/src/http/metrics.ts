import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** One registry per server instance, so several servers in one process (tests) do not collide. */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  decisions: Counter<'outcome'>;
}

export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'authority_' });
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
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'authority_decisions_total',
    help: 'POST /intent outcomes (APPROVED, ESCALATED, DENIED), never by tenant',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return { registry, requests, duration, decisions };
}
