import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SERVER_CHECKPOINT_MS } from '../packages/server/src/cli/context.js';
import { openStorage, type Storage } from '../packages/server/src/storage/database.js';

export type BenchEngine = 'sqlite' | 'postgres';

export function benchEngine(value: string | undefined): BenchEngine {
  if (value === undefined || value === 'sqlite' || value === 'postgres') return value ?? 'sqlite';
  throw new Error(`--engine is sqlite or postgres, not ${value}`);
}

/**
 * A fresh, migrated storage for a benchmark: SQLite in a temporary directory, with WAL checkpoints
 * in a worker thread as `authority serve` runs them (`walCheckpoints: 'inline'` keeps SQLite's
 * default), or a schema of its own on the PostgreSQL of DATABASE_URL. `cleanup` closes it and
 * removes the directory or drops the schema.
 */
export async function openBenchStorage(
  engine: BenchEngine,
  options: { walCheckpoints?: 'background' | 'inline'; sqliteSynchronous?: 'NORMAL' | 'FULL' } = {},
): Promise<{ storage: Storage; cleanup: () => Promise<void> }> {
  if (engine === 'postgres') {
    const url = process.env.DATABASE_URL;
    if (url === undefined) throw new Error('--engine postgres needs DATABASE_URL');
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const storage = openStorage({ databaseUrl: url, pgSchema: schema, poolSize: 10 });
    await storage.migrate();
    return {
      storage,
      cleanup: async () => {
        await storage.close();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
  const storage = openStorage({
    sqliteFile: path.join(dir, 'bench.db'),
    sqliteSynchronous: options.sqliteSynchronous ?? 'NORMAL',
    ...(options.walCheckpoints === 'inline' ? {} : { backgroundCheckpointMs: SERVER_CHECKPOINT_MS }),
  });
  await storage.migrate();
  return {
    storage,
    cleanup: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
