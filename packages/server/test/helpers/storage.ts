import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStorage, type SqlDialect, type Storage } from '../../src/storage/database.js';

export interface TestStorage {
  storage: Storage;
  /** Where another process can open the same database: the SQLite file or the PostgreSQL schema. */
  location: { sqliteFile?: string; pgSchema?: string };
  /** Removes the temporary database (file or schema). */
  dispose(): Promise<void>;
}

/** The engines the storage suite runs on: SQLite always, PostgreSQL when DATABASE_URL is set. */
export const ENGINES: SqlDialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * A fresh, migrated database of the given engine: a temporary SQLite file, or a new schema in the
 * DATABASE_URL database so that parallel test files never see each other's rows.
 */
export async function createTestStorage(
  dialect: SqlDialect,
  options: { migrate?: boolean } = {},
): Promise<TestStorage> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'authority-test-'));
    const sqliteFile = path.join(dir, 'test.db');
    const storage = openStorage({ sqliteFile });
    if (options.migrate !== false) await storage.migrate();
    return {
      storage,
      location: { sqliteFile },
      async dispose() {
        await storage.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required for PostgreSQL tests');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const storage = openStorage({ databaseUrl, pgSchema: schema, poolSize: 4 });
  if (options.migrate !== false) await storage.migrate();
  return {
    storage,
    location: { pgSchema: schema },
    async dispose() {
      await storage.close().catch(() => {});
      // Best-effort cleanup: concurrent DDL from parallel test files can make a drop fail once;
      // a leftover schema in a scratch database must never fail a test.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const cleanup = new pg.Client({ connectionString: databaseUrl });
        try {
          await cleanup.connect();
          await cleanup.query(`drop schema if exists ${schema} cascade`);
          return;
        } catch {
          // try again
        } finally {
          await cleanup.end().catch(() => {});
        }
      }
    },
  };
}
