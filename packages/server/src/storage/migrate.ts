import { readdir } from 'node:fs/promises';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Executor, SqlDialect } from './database.js';

/**
 * Column types that differ between the engines; every migration receives them. Times are integer
 * milliseconds since the epoch: `integer` (64-bit) on SQLite, `bigint` on PostgreSQL.
 */
export interface ColumnTypes {
  millis: 'bigint' | 'integer';
}

/** One migration file: `NNNN_name.ts`, or `NNNN_name.sqlite.ts` and `NNNN_name.postgres.ts`. */
interface MigrationModule {
  up(db: Kysely<unknown>, types: ColumnTypes): Promise<void>;
}

/** `0001_tenants_and_keys.ts`, `0011_example.postgres.js`: the name, and the engine when only one. */
const FILE_NAME = /^(\d{4}_[a-z0-9_]+)(?:\.(sqlite|postgres))?\.(?:ts|js)$/;

const MIGRATIONS_DIRECTORY = new URL('./migrations/', import.meta.url);

/**
 * The migrations of a directory for one engine, keyed by name (the file name without the engine and
 * the extension). A file for the other engine is skipped; a name with an engine-specific file for
 * this engine and a common one is refused, as is a module without `up`.
 */
export async function loadMigrations(
  directory: URL,
  dialect: SqlDialect,
): Promise<Record<string, Migration>> {
  const types: ColumnTypes = { millis: dialect === 'postgres' ? 'bigint' : 'integer' };
  const migrations: Record<string, Migration> = {};
  for (const file of (await readdir(directory)).sort()) {
    const match = FILE_NAME.exec(file);
    if (!match || file.endsWith('.d.ts')) continue;
    const [, name, engine] = match as unknown as [string, string, SqlDialect | undefined];
    if (engine !== undefined && engine !== dialect) continue;
    if (Object.hasOwn(migrations, name)) throw new Error(`migration ${name} is defined twice for ${dialect}`);
    const module = (await import(new URL(file, directory).href)) as Partial<MigrationModule>;
    const up = module.up;
    if (typeof up !== 'function') throw new Error(`migration ${file} exports no up()`);
    migrations[name] = { up: (db: Kysely<unknown>) => up(db, types) };
  }
  return migrations;
}

class DirectoryMigrationProvider implements MigrationProvider {
  constructor(
    private readonly directory: URL,
    private readonly dialect: SqlDialect,
  ) {}
  getMigrations(): Promise<Record<string, Migration>> {
    return loadMigrations(this.directory, this.dialect);
  }
}

export interface MigrationOutcome {
  applied: string[];
}

/** Applies every pending migration, in name order; throws the first failure. */
export async function migrateToLatest(
  db: Kysely<unknown>,
  dialect: SqlDialect,
  schema?: string,
  /** Stop after this migration (tests of a migration's data step); the latest when omitted. */
  upTo?: string,
): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: new DirectoryMigrationProvider(MIGRATIONS_DIRECTORY, dialect),
    // Kysely looks its bookkeeping tables up across schemas; pin them to ours.
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt += 1) {
    const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
    if (!error) {
      return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
    }
    if (!(dialect === 'postgres' && attempt < 3 && isCatalogRace(error))) {
      throw error instanceof Error ? error : new Error(String(error));
    }
  }
}

/**
 * Kysely finds its bookkeeping tables by reading the columns of every schema's tables; a table or
 * a whole schema that another process drops during that read makes PostgreSQL fail the read
 * (42703 from `pg_get_serial_sequence`, 42P01, 3F000 naming the other schema). Nothing was applied
 * then (PostgreSQL migrations run in one transaction), so the run is tried again.
 */
function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '42703' || code === '42P01' || code === '3F000';
}

/** Whether the database holds the service's schema (the migrations table exists). */
export async function hasSchema(storage: { readonly db: Executor }): Promise<boolean> {
  try {
    await sql`select 1 from kysely_migration limit 1`.execute(storage.db);
    return true;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === '42P01' || (typeof message === 'string' && message.includes('no such table'))) return false;
    throw error;
  }
}
