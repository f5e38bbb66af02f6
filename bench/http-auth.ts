import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startEmbeddedServer } from './embedded-server.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '16' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

const server = await startEmbeddedServer();

async function run(title: string, url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({
    url: `${server.base}${url}`,
    connections,
    duration,
    headers,
    workers: 1,
  });
  const errors = result.errors + result.non2xx;
  console.log(
    `${title.padEnd(34)} ${Math.round(result.requests.average).toString().padStart(7)} req/s  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  errors ${errors}`,
  );
}

console.log(`machine: ${machineLine()}`);
console.log(`autocannon: ${connections} connections, ${duration} s per route`);
await run('GET /health (no auth, ceiling)', '/health');
await run('GET /tenant (API key + tenant)', '/tenant', server.headers);
await server.close();
