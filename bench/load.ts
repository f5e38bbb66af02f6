import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Fastify from 'fastify';

/** The request every decision benchmark sends: the bench tenant's policy approves it. */
const APPROVED_INTENT = {
  tenantId: 'bench',
  actor: { id: 'agent-7', type: 'agent' },
  targetSystem: 'acme/payments',
  proposedAction: 'list open pull requests',
  args: { state: 'open', perPage: 50 },
  riskContext: { baseRiskScore: 10 },
};

/** `POST` of the approved intent with these headers (and a JSON content type), for autocannon. */
export function approvedIntentRequest(headers: Record<string, string> = {}) {
  return {
    method: 'POST' as const,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(APPROVED_INTENT),
  };
}

/** A first-use warm-up before a measured run: keys created, policy compiled, code compiled by the JIT. */
export async function warmUp(url: string, request: ReturnType<typeof approvedIntentRequest>): Promise<void> {
  await autocannon({ url, connections: 4, amount: 500, ...request });
}

/** A Fastify app with one empty route, `GET /` (the ceiling every run is compared with). */
export function emptyRouteApp() {
  const empty = Fastify();
  empty.get('/', async () => ({ ok: true }));
  return empty;
}

export interface LoadOptions extends Partial<autocannon.Options> {
  connections: number;
  duration: number;
}

/**
 * Runs autocannon (in one worker thread) against `url` and prints one line: requests per second,
 * p50 and p99, answers that were not 2xx and errors, and this thread's event loop during the run
 * (the server's, when it runs in this process): how busy it was and its busy time per answer,
 * which depends less than throughput on what the load generator gets of the other core; how late
 * its timers ran (p99 and longest, the time one turn of the loop held every waiting request) and
 * its garbage collector's pauses.
 * Returns the mean requests per second.
 */
export async function measure(title: string, url: string, options: LoadOptions): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  delay.enable();
  const before = performance.eventLoopUtilization();
  const result = await autocannon({ url, workers: 1, ...options });
  const loop = performance.eventLoopUtilization(before);
  delay.disable();
  gc.disconnect();
  const bad = result.errors + result.timeouts + (result.non2xx ?? 0);
  const busyMicros = (loop.active * 1000) / Math.max(1, result.requests.total);
  const ms = (nanos: number) => (nanos / 1e6).toFixed(1);
  console.log(
    `${title.padEnd(50)} ${Math.round(result.requests.average).toString().padStart(6)} req/s  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx/errors ${bad}  ` +
      `server loop ${Math.round(loop.utilization * 100)} % busy, ${busyMicros.toFixed(0)} µs per answer, ` +
      `delay p99 ${ms(delay.percentile(99))} ms max ${ms(delay.max)} ms, ` +
      `GC ${pauses.length} pauses longest ${Math.max(0, ...pauses).toFixed(1)} ms`,
  );
  return result.requests.average;
}

/** The ceiling of a run: an empty Fastify route in this process, measured as the others are. */
export async function measureEmptyRoute(options: LoadOptions): Promise<number> {
  const empty = emptyRouteApp();
  const url = await empty.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await measure('empty Fastify route (ceiling)', `${url}/`, options);
  } finally {
    await empty.close();
  }
}
