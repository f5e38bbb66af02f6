import { type Executor, engineOf } from './database.js';

/** A query that can take row locks (a Kysely select). */
interface Lockable<Q> {
  forUpdate(): Q;
}

/**
 * The query with `FOR UPDATE` on PostgreSQL, where concurrent transactions must queue for the
 * rows they change; as it is on SQLite, where `writeTransaction` begins with `BEGIN IMMEDIATE` and
 * so already holds the database's write lock (SQLite has no row locks, nor the syntax).
 */
export function forUpdate<Q extends Lockable<Q>>(executor: Executor, query: Q): Q {
  return engineOf(executor) === 'postgres' ? query.forUpdate() : query;
}
