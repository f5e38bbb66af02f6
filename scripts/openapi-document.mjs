#!/usr/bin/env node
// Prints the OpenAPI document a fully configured server serves (admin routes included) to stdout.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildServer } from '../packages/server/src/app/build-server.ts';
import { loadConfig } from '../packages/server/src/config/config.ts';
import { systemClock } from '../packages/server/src/foundation/clock.ts';
import { openStorage } from '../packages/server/src/storage/database.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'authority-openapi-'));
const storage = openStorage({ sqliteFile: path.join(dir, 'openapi.db') });
try {
  const app = await buildServer({
    config: loadConfig({ AUTHORITY_ADMIN_TOKEN: randomBytes(24).toString('hex') }),
    storage,
    clock: systemClock,
    masterKey: randomBytes(32),
    backgroundJobs: false,
  });
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  await app.close();
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
  process.stdout.write(`${JSON.stringify(res.json(), null, 2)}\n`);
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
