import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type App, buildServer } from '../packages/server/src/app/build-server.js';
import { SERVER_CHECKPOINT_MS } from '../packages/server/src/cli/context.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { openStorage } from '../packages/server/src/storage/database.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';

export interface EmbeddedServer {
  app: App;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Headers of the enterprise tenant `bench`'s owner key (limits high enough for any benchmark). */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/** The service on a fresh embedded SQLite database in a temporary directory, listening on a free port. */
export async function startEmbeddedServer(): Promise<EmbeddedServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
  // As `authority serve` opens it: WAL checkpoints in a worker thread.
  const storage = openStorage({
    sqliteFile: path.join(dir, 'bench.db'),
    backgroundCheckpointMs: SERVER_CHECKPOINT_MS,
  });
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
  return {
    app,
    base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    headers: { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'bench' },
    async close() {
      await app.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
