import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError, type ConfigFlags, loadConfig } from '../config/config.js';
import { openStorage, type Storage } from '../storage/database.js';
import { hasSchema } from '../storage/migrate.js';

export interface GlobalFlags extends ConfigFlags {
  demo?: boolean;
}

/** How often a server checkpoints the embedded database's WAL from its worker thread. */
export const SERVER_CHECKPOINT_MS = 500;

/**
 * Loads the configuration and opens the database the command works on; a `server` keeps WAL
 * checkpoints off its event loop.
 */
export function openContext(
  flags: GlobalFlags,
  use: 'command' | 'server' = 'command',
): { config: Config; storage: Storage } {
  const config = loadConfig(process.env, flags);
  const storage = openStorage({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteSynchronous: config.sqliteSynchronous,
    timeoutMs: config.databaseTimeoutMs,
    ...(use === 'server' ? { backgroundCheckpointMs: SERVER_CHECKPOINT_MS } : {}),
  });
  return { config, storage };
}

/**
 * Runs work against a migrated database and closes it afterwards. Only the commands that create
 * (`migrate`, `tenants create`) may start from nothing: the others refuse a missing or empty
 * database (a mistyped --data-dir would otherwise leave an empty database behind and answer as
 * if nothing were there).
 */
export async function withStorage<T>(
  flags: GlobalFlags,
  work: (storage: Storage, config: Config) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig(process.env, flags);
  const file = path.join(config.dataDir, 'authority.db');
  if (!options.create && config.mode === 'embedded' && !existsSync(file)) {
    throw new ConfigError(
      'DATA_DIR',
      `holds no database (${file}): start the service there, or run authority migrate`,
    );
  }
  const { storage } = openContext(flags);
  try {
    if (!options.create && !(await hasSchema(storage))) {
      throw new ConfigError(
        config.mode === 'embedded' ? 'DATA_DIR' : 'DATABASE_URL',
        'names a database without the service schema: run authority migrate first',
      );
    }
    await storage.migrate();
    return await work(storage, config);
  } finally {
    await storage.close();
  }
}
