import type { Context } from '@opentelemetry/api';
import { isDatabaseUnavailable, isTransactionConflict } from '../errors/database-errors.js';
import { activeContext, linkTo, tracingEnabled, withSpan } from '../foundation/tracing.js';
import type { Executor, Storage } from './database.js';

interface Pending<I, R> {
  item: I;
  /** The submitter's trace context (tracing on only): the batch's span links to it. */
  trace: Context | undefined;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommit<I, R> {
  /** Resolves once the item is committed; rejects when its transaction failed. */
  submit(item: I): Promise<R>;
}

/**
 * How often a batch PostgreSQL aborted to break a deadlock (or a serialization failure) is written
 * again as it was before it is split: the abort wrote nothing, and the other transaction has
 * usually finished by then.
 */
const CONFLICT_ATTEMPTS = 3;

/**
 * Group commit: items submitted while a transaction is being written wait for the next one and
 * commit together, so N concurrent decisions cost one transaction (one `BEGIN IMMEDIATE` on SQLite,
 * one round trip per statement on PostgreSQL) instead of N. `apply` receives the batch in
 * submission order (or `lockKey` order) and returns one result per item.
 *
 * Nothing is acknowledged before its transaction commits. A batch that fails while the database is
 * unavailable fails every item in it; one PostgreSQL aborted to resolve a deadlock is written again
 * (up to CONFLICT_ATTEMPTS times in all); one that fails for any other reason is retried item by
 * item, so one unstorable item cannot take its neighbours down with it.
 */
export function createGroupCommit<I, R>(options: {
  storage: Storage;
  maxBatch: number;
  apply: (trx: Executor, items: readonly I[]) => Promise<R[]>;
  /**
   * The order in which `apply` receives a batch: ascending by this key (code units), then by
   * submission. Items that lock rows pass the rows' key (the tenant, say), so every instance locks
   * them in one order: batches of the same tenants in different orders on two instances would
   * deadlock on PostgreSQL. Without it, submission order.
   */
  lockKey?: (item: I) => string;
  /** Told of every committed batch: its size and how long its transaction took. */
  onCommit?: (batchSize: number, seconds: number) => void;
}): GroupCommit<I, R> {
  const { storage, maxBatch, apply, lockKey, onCommit } = options;
  const inLockOrder = (batch: Pending<I, R>[]) => {
    if (lockKey === undefined) return batch;
    const keyed = batch.map((pending) => ({ pending, key: lockKey(pending.item) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return keyed.map(({ pending }) => pending);
  };
  let queue: Pending<I, R>[] = [];
  let flushing = false;

  async function commit(batch: Pending<I, R>[], attempt = 1): Promise<void> {
    try {
      const started = process.hrtime.bigint();
      const items = batch.map((p) => p.item);
      const write = () => storage.writeTransaction((trx) => apply(trx, items));
      const results = tracingEnabled()
        ? await withSpan(
            'group_commit',
            {
              attributes: { 'authority.batch_size': batch.length },
              parent: batch[0]?.trace,
              links: batch.flatMap((p) => linkTo(p.trace) ?? []),
            },
            write,
          )
        : await write();
      onCommit?.(batch.length, Number(process.hrtime.bigint() - started) / 1e9);
      batch.forEach((pending, index) => {
        pending.resolve(results[index] as R);
      });
    } catch (error) {
      if (isTransactionConflict(error) && attempt < CONFLICT_ATTEMPTS) {
        await commit(batch, attempt + 1);
        return;
      }
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      for (const pending of batch) await commit([pending]);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
        queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
        await commit(inLockOrder(batch));
      }
    } finally {
      flushing = false;
    }
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, trace: activeContext(), resolve, reject });
        // The first item waits one turn of the event loop so that requests already read join it;
        // while a batch is being written, the flush loop picks new items up by itself.
        if (!flushing && queue.length === 1) setImmediate(() => void flush());
      });
    },
  };
}
