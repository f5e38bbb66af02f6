import { type Config, type ConfigFlags, loadConfig } from '../config/config.js';
import { openStorage, type Storage } from '../storage/database.js';

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

/** Runs work against a migrated database and closes it afterwards. */
export async function withStorage<T>(
  flags: GlobalFlags,
  work: (storage: Storage, config: Config) => Promise<T>,
): Promise<T> {
  const { config, storage } = openContext(flags);
  try {
    await storage.migrate();
    return await work(storage, config);
  } finally {
    await storage.close();
  }
}
