import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase as SqliteDialectDatabase,
  sql,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { tighten } from '../foundation/file-modes.js';
import { SpanKind, tracingEnabled, withSpan } from '../foundation/tracing.js';
import { createBoundedPool, kyselyPool, type PoolStats, type PoolWaits } from './bounded-pg-pool.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

export type SqlDialect = 'sqlite' | 'postgres';

/**
 * What repositories run queries on: the storage's `db`, or the `trx` that `writeTransaction` hands
 * its work. Repositories take it as their first argument, so that a caller decides whether a call
 * commits on its own or with the rest of a transaction.
 */
export type Executor = Kysely<Database>;

/** The engine behind every executor a Storage hands out (its `db` and each transaction's `trx`). */
const engines = new WeakMap<Executor, SqlDialect>();

/** The engine of an executor of a Storage; throws for one that no Storage handed out. */
export function engineOf(executor: Executor): SqlDialect {
  const engine = engines.get(executor);
  if (engine === undefined) throw new Error('the executor does not come from a Storage');
  return engine;
}

/** Records the engine of an executor, then hands it on. */
function registered<T extends Executor>(executor: T, engine: SqlDialect): T {
  engines.set(executor, engine);
  return executor;
}

/** The storage handle every repository works through. */
export interface Storage {
  readonly db: Executor;
  readonly dialect: SqlDialect;
  /**
   * Runs work in a write transaction that holds the database's write lock from its first statement:
   * `BEGIN IMMEDIATE` on SQLite (so appends from several processes serialize instead of failing on
   * a lock upgrade), a normal transaction on PostgreSQL (callers take row locks with FOR UPDATE).
   */
  writeTransaction<T>(work: (trx: Executor) => Promise<T>): Promise<T>;
  /** PostgreSQL only: the pool's use now (SQLite has one in-process connection and no pool). */
  poolStats?(): PoolStats;
  /** Cheap round trip used by `/ready`; rejects when the database cannot answer. */
  ping(): Promise<void>;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

export interface StorageOptions {
  databaseUrl?: string | undefined;
  /** Directory of the SQLite file when no databaseUrl is given. */
  dataDir?: string;
  /** Full path of the SQLite file; wins over dataDir (tests use a temporary file). */
  sqliteFile?: string;
  /** PostgreSQL only: schema to use as search_path (tests isolate themselves this way). */
  pgSchema?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** SQLite `synchronous` pragma: NORMAL (default, survives process crashes) or FULL (power loss too). */
  sqliteSynchronous?: 'NORMAL' | 'FULL';
  /**
   * SQLite only: run WAL checkpoints in a worker thread every this many milliseconds instead of
   * inline in the commit that crosses the threshold (which stalls the event loop for the copy and
   * its fsync). For long-running servers; short-lived commands keep the inline default.
   */
  backgroundCheckpointMs?: number;
  /**
   * DATABASE_TIMEOUT_MS (default 5 s): the longest any one wait on the database may last
   * (bounded-pg-pool.ts on PostgreSQL; SQLite's busy timeout), so a database that stops answering
   * costs a request at most this long, then a 503.
   */
  timeoutMs?: number;
}

export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;

const INT8_OID = 20;

/** Millisecond times are bigint on PostgreSQL; they fit a double exactly, so read them as numbers. */
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
};

function openPostgres(options: StorageOptions & { databaseUrl: string }): Storage {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const poolOptions = {
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 10,
    timeoutMs,
    schema: options.pgSchema,
    types: pgTypes,
  };
  const pgPool = createBoundedPool(poolOptions);
  const waits: PoolWaits = { acquired: 0, seconds: 0 };
  const pool = kyselyPool(pgPool, waits);
  const db = registered(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
  return {
    db,
    dialect: 'postgres',
    writeTransaction: (work) => db.transaction().execute((trx) => work(registered(trx, 'postgres'))),
    poolStats: () => ({
      max: poolOptions.max,
      total: pgPool.totalCount,
      idle: pgPool.idleCount,
      waiting: pgPool.waitingCount,
      ...waits,
    }),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async migrate() {
      // On a connection of its own without statement timeouts: building an index may take longer
      // than a request may wait.
      const migrations = new Kysely<unknown>({
        dialect: new PostgresDialect({
          pool: kyselyPool(createBoundedPool({ ...poolOptions, max: 1, statementTimeouts: false })),
        }),
      });
      try {
        return (await migrateToLatest(migrations, 'postgres', options.pgSchema)).applied;
      } finally {
        await migrations.destroy();
      }
    },
    async close() {
      // Ending a connection the server no longer answers waits for a goodbye that never comes;
      // shutdown waits at most the database bound for it.
      // The pool is ended even when Kysely never used it (migrations run on their own pool).
      await settleWithin(
        db.destroy().finally(() => pool.end()),
        timeoutMs,
      );
    },
  };
}

/**
 * The data directory and the database files are the owner's only (0700 and 0600), whatever the
 * umask, and existing ones are tightened: the database holds tenant data and sealed secrets, and
 * `master.key` beside it opens them. SQLite creates `-wal` and `-shm` with the database file's
 * mode, so the file is created 0600 before SQLite opens it. A path another user owns keeps its mode.
 */
function ownerOnly(file: string): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
  closeSync(openSync(file, 'a', 0o600));
  for (const name of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(name)) tighten(name, 0o600);
}

function openSqlite(options: StorageOptions): Storage {
  const file = options.sqliteFile ?? path.join(options.dataDir ?? './data', 'authority.db');
  ownerOnly(file);
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.sqliteSynchronous ?? 'NORMAL'}`);
  database.pragma(`busy_timeout = ${options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  let checkpointer: WalCheckpointer | undefined;
  if (options.backgroundCheckpointMs !== undefined) {
    database.pragma('wal_autocheckpoint = 0');
    checkpointer = startWalCheckpointer({
      file,
      intervalMs: options.backgroundCheckpointMs,
      // Fall back to checkpoints in the commit path rather than let the WAL grow.
      onFailure: () => {
        if (database.open) database.pragma('wal_autocheckpoint = 1000');
      },
    });
  }
  // Kysely prepares every statement anew; better-sqlite3 statements are reusable, so keep the
  // recent ones (the hot path runs the same dozen statements for every decision).
  const statements = new LRUCache<string, SqliteDatabase.Statement>({ max: 500 });
  const cachedDatabase: SqliteDialectDatabase = {
    close: () => database.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
  const db = registered(
    new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedDatabase }) }),
    'sqlite',
  );
  return {
    db,
    dialect: 'sqlite',
    writeTransaction: (work) =>
      db.connection().execute(async (connection) => {
        await sql`begin immediate`.execute(connection);
        try {
          const result = await work(registered(connection, 'sqlite'));
          await sql`commit`.execute(connection);
          return result;
        } catch (error) {
          await sql`rollback`.execute(connection).catch(() => {});
          throw error;
        }
      }),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async migrate() {
      return (await migrateToLatest(db as Kysely<unknown>, 'sqlite')).applied;
    },
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Waits for work to settle, at most `ms`. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    deadline,
  ]);
  clearTimeout(timer);
}

/** Opens SQLite (no databaseUrl) or PostgreSQL (a postgres:// databaseUrl). */
export function openStorage(options: StorageOptions): Storage {
  const storage = options.databaseUrl
    ? openPostgres({ ...options, databaseUrl: options.databaseUrl })
    : openSqlite(options);
  const write = storage.writeTransaction;
  // A `db.transaction` span around every write transaction when tracing is on.
  const attributes = { 'db.system.name': storage.dialect === 'postgres' ? 'postgresql' : 'sqlite' };
  storage.writeTransaction = (work) =>
    tracingEnabled()
      ? withSpan('db.transaction', { kind: SpanKind.CLIENT, attributes }, () => write(work))
      : write(work);
  return storage;
}
