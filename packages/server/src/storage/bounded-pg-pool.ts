import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

export interface BoundedPoolOptions {
  connectionString: string;
  max: number;
  /** DATABASE_TIMEOUT_MS: the longest any one wait on the database may last. */
  timeoutMs: number;
  /** search_path (tests isolate themselves in a schema). */
  schema?: string | undefined;
  types: pg.CustomTypesConfig;
  /** Migrations may run statements longer than a request's bound; they get no statement timeouts. */
  statementTimeouts?: boolean;
}

/**
 * A PostgreSQL pool where every wait on the database is bounded by `timeoutMs`, so a database
 * that stops answering (packets dropped, not refused) costs a request at most that long, then a
 * 503, and never hangs requests or shutdown:
 * - connecting, and waiting for a free connection: `connectionTimeoutMillis`;
 * - each statement: `query_timeout` on the client (it fires even when the server is unreachable)
 *   and `statement_timeout` on the server (which also bounds lock waits);
 * - a transaction the server sees idle (its client gone silent while holding row locks, such as
 *   the chain head): `idle_in_transaction_session_timeout`;
 * - idle connections: TCP keepalive after `timeoutMs` of silence.
 * A connection whose statement failed without an answer from the server (a timeout, a socket
 * error) is in an unknown state: later statements on it (the ROLLBACK) fail at once with the same
 * error, and the pool destroys it when it is released.
 */
export function createBoundedPool(options: BoundedPoolOptions): pg.Pool {
  const timeouts =
    options.statementTimeouts === false
      ? {}
      : {
          query_timeout: options.timeoutMs,
          statement_timeout: options.timeoutMs,
          idle_in_transaction_session_timeout: options.timeoutMs,
        };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    connectionTimeoutMillis: options.timeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: options.timeoutMs,
    types: options.types,
    ...timeouts,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // A client losing its connection emits 'error' (idle or mid-query); that must never crash the
  // process. The query in flight rejects on its own and the pool drops the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

function boundedClient(client: pg.PoolClient): PostgresPoolClient {
  let broken: Error | undefined;
  const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
    if (broken !== undefined) throw broken;
    try {
      return await client.query(text, [...parameters]);
    } catch (error) {
      // A server error (constraint, syntax, statement_timeout) leaves the connection usable.
      if (!(error instanceof pg.DatabaseError)) {
        broken = error instanceof Error ? error : new Error(String(error));
      }
      throw error;
    }
  };
  // Only the (sql, parameters) form: Kysely queries with a cursor only when its dialect is given a
  // cursor class, which this service never gives it.
  return { query, release: () => client.release(broken ?? false) } as unknown as PostgresPoolClient;
}

/** Connections handed out by a pool and the time callers waited for them, since it opened. */
export interface PoolWaits {
  acquired: number;
  seconds: number;
}

/** A PostgreSQL pool's use now (metrics): connections open, idle, callers waiting, and waits so far. */
export interface PoolStats extends PoolWaits {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

/**
 * The pool as Kysely uses it: connections that discard themselves once they stop answering. `end`
 * may be called more than once (Kysely ends the pool it used; the owner ends it in any case).
 */
export function kyselyPool(pool: pg.Pool, waits?: PoolWaits): PostgresPool {
  let ended: Promise<void> | undefined;
  return {
    connect: async () => {
      if (waits === undefined) return boundedClient(await pool.connect());
      const started = performance.now();
      const client = await pool.connect();
      waits.acquired += 1;
      waits.seconds += (performance.now() - started) / 1000;
      return boundedClient(client);
    },
    end: () => {
      ended ??= pool.end();
      return ended;
    },
  };
}
