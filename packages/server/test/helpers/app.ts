import { type App, buildServer, type ServerDeps } from '../../src/app/build-server.js';
import { createServices, type Services } from '../../src/app/services.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import type { Resolver } from '../../src/egress/egress-client.js';
import type { Clock } from '../../src/foundation/clock.js';
import type { SqlDialect, Storage } from '../../src/storage/database.js';
import { type CreatedTenant, createTenantService } from '../../src/tenancy/tenant-service.js';
import { createTestStorage, type TestStorage } from './storage.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef0123456789';
/** A fixed master key for tests (never use a constant key outside tests). */
export const TEST_MASTER_KEY = Buffer.alloc(32, 7);

export type Headers = Record<string, string>;

/** The credential headers of a tenant route. */
export const bearer = (key: string, tenantId: string): Headers => ({
  authorization: `Bearer ${key}`,
  'x-tenant-id': tenantId,
});

/** A clock tests move by hand. */
export function manualClock(
  start = Date.parse('2026-01-01T00:00:00.000Z'),
): Clock & { advance(ms: number): void } {
  let now = start;
  const clock = (() => now) as Clock & { advance(ms: number): void };
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

export interface TestApp {
  app: App;
  storage: Storage;
  config: Config;
  clock: ReturnType<typeof manualClock>;
  services: Services;
  /** Creates a tenant with an owner key directly through the service. */
  createTenant(id: string, plan?: string): Promise<CreatedTenant>;
  /** Creates a tenant and returns its owner key's headers. */
  ownerHeaders(tenantId: string): Promise<Headers>;
  /** Creates a key of the role in an existing tenant and returns its headers. */
  roleHeaders(tenantId: string, role: string): Promise<Headers>;
  close(): Promise<void>;
}

/** A server over a fresh database of the given engine, with the admin routes enabled. */
export async function createTestApp(
  dialect: SqlDialect = 'sqlite',
  env: Record<string, string> = {},
  /** Registers extra routes (test-only probes) before the app is ready. */
  extend?: (app: App) => void | Promise<void>,
  options: { resolver?: Resolver; consoleDir?: string; logger?: ServerDeps['logger'] } = {},
): Promise<TestApp> {
  const testStorage: TestStorage = await createTestStorage(dialect);
  const config = loadConfig({ AUTHORITY_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  const clock = manualClock();
  const services = createServices({
    config,
    storage: testStorage.storage,
    clock,
    masterKey: TEST_MASTER_KEY,
    resolver: options.resolver,
    onBackgroundError: () => {},
  });
  const app = await buildServer({
    config,
    storage: testStorage.storage,
    clock,
    masterKey: TEST_MASTER_KEY,
    services,
    backgroundJobs: false,
    consoleDir: options.consoleDir,
    logger: options.logger,
  });
  if (extend) await extend(app);
  await app.ready();
  const tenants = createTenantService(testStorage.storage, clock);
  const createTenant = (id: string, plan = 'pro') =>
    tenants.create({ id, plan, rateLimitPerMinute: plan === 'enterprise' ? 10_000 : undefined });
  return {
    app,
    storage: testStorage.storage,
    config,
    clock,
    services,
    ownerHeaders: async (tenantId) => bearer((await createTenant(tenantId)).ownerKey.key, tenantId),
    roleHeaders: async (tenantId, role) =>
      bearer((await services.apiKeys.create(tenantId, { name: role, role }, null)).key, tenantId),
    createTenant,
    async close() {
      await app.close();
      await testStorage.dispose();
    },
  };
}
