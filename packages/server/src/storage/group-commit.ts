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
  /**
   * Runs work after which the caller submits an item (an approval's signature on the thread pool,
   * say): a batch about to start waits for the work in progress (at most `holdMs`), so that the items
   * of one burst of requests commit together instead of in as many transactions as the work's
   * callbacks take turns of the event loop.
   */
  preparing<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * How often a batch PostgreSQL aborted to break a deadlock (or a serialization failure) is written
 * again as it was before it is split: the abort wrote nothing, and the other transaction has
 * usually finished by then.
 */
const CONFLICT_ATTEMPTS = 3;

/**
 * The longest a batch waits for work announced with `preparing`: an Ed25519 signature takes tens
 * of microseconds on the thread pool, an RSA-4096 one several milliseconds, which a batch does not
 * wait out.
 */
export const HOLD_MS = 1;

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
  /** The longest a batch waits for work announced with `preparing` (default HOLD_MS). */
  holdMs?: number;
}): GroupCommit<I, R> {
  const { storage, maxBatch, apply, lockKey, onCommit, holdMs = HOLD_MS } = options;
  const inLockOrder = (batch: Pending<I, R>[]) => {
    if (lockKey === undefined) return batch;
    const keyed = batch.map((pending) => ({ pending, key: lockKey(pending.item) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return keyed.map(({ pending }) => pending);
  };
  let queue: Pending<I, R>[] = [];
  /**
   * idle: nothing queued; scheduled: a batch starts at the next check phase; held: a batch waits
   * for work in progress (`preparing`), at most `holdMs`; flushing: batches are being written.
   */
  let state: 'idle' | 'scheduled' | 'held' | 'flushing' = 'idle';
  let inPreparation = 0;
  let holdTimer: NodeJS.Timeout | undefined;

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
    clearTimeout(holdTimer);
    holdTimer = undefined;
    state = 'flushing';
    try {
      while (queue.length > 0) {
        const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
        queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
        await commit(inLockOrder(batch));
      }
    } finally {
      state = 'idle';
    }
  }

  /** The first batch after a pause: at once, or held while announced work is in progress. */
  function start(): void {
    if (inPreparation === 0) {
      void flush();
      return;
    }
    state = 'held';
    holdTimer = setTimeout(() => void flush(), holdMs);
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, trace: activeContext(), resolve, reject });
        // The first item waits one turn of the event loop so that requests already read join it;
        // while a batch is being written, the flush loop picks new items up by itself.
        if (state === 'idle') {
          state = 'scheduled';
          setImmediate(start);
        }
      });
    },
    async preparing(work) {
      inPreparation += 1;
      try {
        return await work();
      } finally {
        inPreparation -= 1;
        // The caller submits its item in the microtasks that follow; the batch starts after them.
        if (inPreparation === 0 && state === 'held') {
          state = 'scheduled';
          clearTimeout(holdTimer);
          holdTimer = undefined;
          setImmediate(() => void flush());
        }
      }
    },
  };
}
