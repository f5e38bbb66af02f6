import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's program (CommonJS, run with `eval`): its own connection to the database file runs a
 * PASSIVE checkpoint every interval, which copies committed WAL frames into the database without
 * waiting for, or blocking, the writer. The copy and its fsync happen on this thread, not on the
 * event loop that answers requests.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Stops the worker after its current checkpoint and closes its connection. */
  stop(): Promise<void>;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. The caller turns the connection's automatic
 * checkpoint off; should the worker fail, `onFailure` is told once so the caller can turn it back on
 * (the WAL must not grow without bound).
 */
export function startWalCheckpointer(options: {
  file: string;
  intervalMs: number;
  onFailure: (error: Error) => void;
}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file: options.file, intervalMs: options.intervalMs, driver },
    // The program is plain CommonJS: no loader the parent was started with is needed here.
    execArgv: [],
  });
  worker.unref();
  let failed = false;
  const fail = (error: Error) => {
    if (failed) return;
    failed = true;
    options.onFailure(error);
  };
  worker.on('message', (message: { error?: string }) => {
    if (message.error) fail(new Error(`WAL checkpoint failed: ${message.error}`));
  });
  worker.on('error', fail);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Unref'd while it runs; held now so the process waits for the connection to close.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
