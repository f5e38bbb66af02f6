import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { profiled } from './cpu-profile.js';
import { startEmbeddedServer } from './embedded-server.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    // Writes a CPU profile of the server's thread during the saturated POST /intent run.
    profile: { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

// The server's thread: how much of the run its event loop was busy, and that busy time per answer
// (less sensitive than throughput to what the load generator gets of the other core).
async function measure(title: string, url: string, options: Partial<autocannon.Options> = {}) {
  const before = performance.eventLoopUtilization();
  const result = await autocannon({ url, connections, duration, workers: 1, ...options });
  const loop = performance.eventLoopUtilization(before);
  const bad = result.errors + result.timeouts + (result.non2xx ?? 0);
  const busyMicros = (loop.active * 1000) / Math.max(1, result.requests.total);
  console.log(
    `${title.padEnd(50)} ${Math.round(result.requests.average).toString().padStart(6)} req/s  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx/errors ${bad}  ` +
      `server loop ${Math.round(loop.utilization * 100)} % busy, ${busyMicros.toFixed(0)} µs per answer`,
  );
}

console.log(`machine: ${machineLine()}`);
console.log(
  `autocannon: ${connections} connections, ${duration} s per run, load generator in a worker thread`,
);

const empty = Fastify();
empty.get('/', async () => ({ ok: true }));
await empty.listen({ port: 0, host: '127.0.0.1' });
const emptyAddress = empty.server.address();
await measure(
  'empty Fastify route (ceiling)',
  `http://127.0.0.1:${typeof emptyAddress === 'object' && emptyAddress ? emptyAddress.port : 0}/`,
);
await empty.close();

const server = await startEmbeddedServer();
const url = `${server.base}/intent`;
const request = {
  method: 'POST' as const,
  headers: { ...server.headers, 'content-type': 'application/json' },
  body: JSON.stringify({
    tenantId: 'bench',
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction: 'list open pull requests',
    args: { state: 'open', perPage: 50 },
    riskContext: { baseRiskScore: 10 },
  }),
};
// Warm up: first-use key creation, policy compilation, JIT.
await autocannon({ url, connections: 4, amount: 500, ...request });
await profiled(values.profile, () =>
  measure('POST /intent APPROVED (token + 3 audit entries)', url, request),
);
// autocannon paces a fixed rate per connection and starts every connection at the same instant,
// so N connections at 1,000 req/s arrive as bursts of N requests every N ms: the p99 then measures
// how long a burst of N takes to drain. Both shapes are recorded.
for (const rateConnections of [8, connections]) {
  await measure(`POST /intent APPROVED at 1,000 req/s, ${rateConnections} conns`, url, {
    ...request,
    connections: rateConnections,
    overallRate: 1_000,
  });
}
const verify = await server.app.inject({
  method: 'POST',
  url: '/audit/verify-chain',
  headers: request.headers,
});
console.log(`chain after the run: ${verify.json().length} entries, valid=${verify.json().valid}`);
const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
const commits = metric('authority_decision_commit_batch_size_count');
console.log(
  `group commit: ${commits} transactions, ${(metric('authority_decision_commit_batch_size_sum') / commits).toFixed(1)} decisions each on average, ` +
    `${((metric('authority_audit_append_seconds_sum') / commits) * 1000).toFixed(2)} ms per transaction`,
);
await server.close();
