import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config/config.js';
import { systemClock } from '../foundation/clock.js';
import { type RegisteredRoute, renderRouteTable, replaceRouteTable } from '../http/route-table.js';
import { openStorage } from '../storage/database.js';
import { buildServer } from './build-server.js';

/**
 * The routes a fully configured server registers (admin routes included), read from a server built
 * on a throwaway database that is never queried.
 */
export async function collectRegisteredRoutes(): Promise<RegisteredRoute[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-routes-'));
  const storage = openStorage({ sqliteFile: path.join(dir, 'routes.db') });
  try {
    const app = await buildServer({
      config: loadConfig({ AUTHORITY_ADMIN_TOKEN: randomBytes(24).toString('hex') }),
      storage,
      clock: systemClock,
      masterKey: randomBytes(32),
      backgroundJobs: false,
    });
    await app.ready();
    const routes = [...app.registeredRoutes];
    await app.close();
    return routes;
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rewrites the generated route table of a Markdown file; returns whether it changed. */
export async function writeRouteDocs(file: string): Promise<boolean> {
  const before = readFileSync(file, 'utf8');
  const after = replaceRouteTable(before, renderRouteTable(await collectRegisteredRoutes()));
  if (after === before) return false;
  writeFileSync(file, after);
  return true;
}
