import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config/config.js';
import { systemClock } from '../foundation/clock.js';
import { type RegisteredRoute, renderRouteTable, replaceRouteTable } from '../http/route-table.js';
import { openStorage } from '../storage/database.js';
import { type App, buildServer } from './build-server.js';

/**
 * Runs `use` on a fully configured server (admin routes included, no background jobs) built on a
 * throwaway database that is removed afterwards: for reading what the server declares (its routes,
 * its OpenAPI document), never for serving.
 */
export async function withThrowawayServer<T>(use: (app: App) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-throwaway-'));
  const storage = openStorage({ sqliteFile: path.join(dir, 'throwaway.db') });
  try {
    const app = await buildServer({
      config: loadConfig({ AUTHORITY_ADMIN_TOKEN: randomBytes(24).toString('hex') }),
      storage,
      clock: systemClock,
      masterKey: randomBytes(32),
      backgroundJobs: false,
    });
    try {
      await app.ready();
      return await use(app);
    } finally {
      await app.close();
    }
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The routes a fully configured server registers (admin routes included). */
export function collectRegisteredRoutes(): Promise<RegisteredRoute[]> {
  return withThrowawayServer(async (app) => [...app.registeredRoutes]);
}

/** Rewrites the generated route table of a Markdown file; returns whether it changed. */
export async function writeRouteDocs(file: string): Promise<boolean> {
  const before = readFileSync(file, 'utf8');
  const after = replaceRouteTable(before, renderRouteTable(await collectRegisteredRoutes()));
  if (after === before) return false;
  writeFileSync(file, after);
  return true;
}
