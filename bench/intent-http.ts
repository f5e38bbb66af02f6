// POST /intent over HTTP on the embedded default (SQLite, durable commits): the APPROVED path with
// token and audit entries, at full speed and at a fixed 1,000 req/s, beside an empty Fastify route
// (the ceiling). Run: npx tsx --conditions=development bench/intent-http.ts [--duration 10] [--connections 32]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { systemClock } from '../packages/server/src/clock.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { buildServer } from '../packages/server/src/http/build-server.js';
import { openStorage } from '../packages/server/src/storage/database.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

async function measure(title: string, url: string, options: Partial<autocannon.Options> = {}) {
  const result = await autocannon({ url, connections, duration, workers: 1, ...options });
  const bad = result.errors + result.timeouts + (result.non2xx ?? 0);
  console.log(
    `${title.padEnd(44)} ${Math.round(result.requests.average).toString().padStart(6)} req/s  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx/errors ${bad}`,
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

const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
const storage = openStorage({ sqliteFile: path.join(dir, 'bench.db') });
await storage.migrate();
const { ownerKey } = await createTenantService(storage, systemClock).create({
  id: 'bench',
  plan: 'enterprise',
  rateLimitPerMinute: 1_000_000,
});
const app = await buildServer({
  config: loadConfig({}),
  storage,
  clock: systemClock,
  masterKey: randomBytes(32),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/intent`;
const request = {
  method: 'POST' as const,
  headers: {
    authorization: `Bearer ${ownerKey.key}`,
    'x-tenant-id': 'bench',
    'content-type': 'application/json',
  },
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
await measure('POST /intent APPROVED (token + 3 audit entries)', url, request);
await measure('POST /intent APPROVED at a fixed 1,000 req/s', url, { ...request, overallRate: 1_000 });
const verify = await app.inject({ method: 'POST', url: '/audit/verify-chain', headers: request.headers });
console.log(`chain after the run: ${verify.json().length} entries, valid=${verify.json().valid}`);
await app.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
