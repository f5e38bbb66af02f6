import { randomBytes } from 'node:crypto';
import { type App, buildServer } from '../packages/server/src/app/build-server.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { type BenchEngine, openBenchStorage } from './bench-storage.js';

export interface EmbeddedServer {
  app: App;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Headers of the enterprise tenant `bench`'s owner key (limits high enough for any benchmark). */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The service on a fresh database (embedded SQLite in a temporary directory unless `engine` says
 * postgres, then a schema of its own on DATABASE_URL), listening on a free port.
 */
export async function startEmbeddedServer(engine: BenchEngine = 'sqlite'): Promise<EmbeddedServer> {
  const { storage, cleanup } = await openBenchStorage(engine);
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
      await cleanup();
    },
  };
}
