import { parseArgs } from 'node:util';
import { benchEngine } from './bench-storage.js';
import { profiled } from './cpu-profile.js';
import { startEmbeddedServer } from './embedded-server.js';
import { approvedIntentRequest, measure, measureEmptyRoute, warmUp } from './load.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    // postgres: the service on a schema of its own on DATABASE_URL instead of embedded SQLite.
    engine: { type: 'string', default: 'sqlite' },
    // Writes a CPU profile of the server's thread during the saturated POST /intent run.
    profile: { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const engine = benchEngine(values.engine);

console.log(`machine: ${machineLine()}`);
console.log(`engine: ${engine}`);
console.log(
  `autocannon: ${connections} connections, ${duration} s per run, load generator in a worker thread`,
);

await measureEmptyRoute({ connections, duration });

const server = await startEmbeddedServer(engine);
const url = `${server.base}/intent`;
const request = approvedIntentRequest(server.headers);
await warmUp(url, request);

const metric = async (name: string) => {
  const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
};
/** Runs a measurement and prints the group commits of its decisions: how many, how full, how long. */
async function withCommits(run: () => Promise<unknown>): Promise<void> {
  const read = () =>
    Promise.all([
      metric('authority_decision_commit_batch_size_count'),
      metric('authority_decision_commit_batch_size_sum'),
      metric('authority_audit_append_seconds_sum'),
    ]);
  const [count, size, seconds] = await read();
  await run();
  const [countAfter, sizeAfter, secondsAfter] = await read();
  const commits = countAfter - count;
  console.log(
    `  group commit: ${commits} transactions, ${((sizeAfter - size) / commits).toFixed(1)} decisions each, ` +
      `${(((secondsAfter - seconds) / commits) * 1000).toFixed(2)} ms each`,
  );
}

await profiled(values.profile, () =>
  withCommits(() =>
    measure('POST /intent APPROVED (token + 3 audit entries)', url, { ...request, connections, duration }),
  ),
);
// autocannon paces a fixed rate per connection and starts every connection at the same instant,
// so N connections at 1,000 req/s arrive as bursts of N requests every N ms: the p99 then measures
// how long a burst of N takes to drain. Both shapes are recorded.
for (const rateConnections of [8, connections]) {
  await withCommits(() =>
    measure(`POST /intent APPROVED at 1,000 req/s, ${rateConnections} conns`, url, {
      ...request,
      duration,
      connections: rateConnections,
      overallRate: 1_000,
    }),
  );
}
const verify = await server.app.inject({
  method: 'POST',
  url: '/audit/verify-chain',
  headers: request.headers,
});
console.log(`chain after the run: ${verify.json().length} entries, valid=${verify.json().valid}`);
await server.close();
