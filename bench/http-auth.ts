// HTTP baseline: an unauthenticated route (the ceiling of the stack) against an authenticated
// tenant route (key look-up, tenant header, permission, one read), over a real port on the
// embedded SQLite default. Run: npx tsx bench/http-auth.ts [--duration 10] [--connections 16]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { systemClock } from '../packages/server/src/clock.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { buildServer } from '../packages/server/src/http/build-server.js';
import { openStorage } from '../packages/server/src/storage/database.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '16' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

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
const port = typeof address === 'object' && address ? address.port : 0;

async function run(title: string, url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${url}`,
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
await run('GET /tenant (API key + tenant)', '/tenant', {
  authorization: `Bearer ${ownerKey.key}`,
  'x-tenant-id': 'bench',
});
await app.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
