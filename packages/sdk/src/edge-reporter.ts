import { callService, type EdgeCallContext, EdgeServiceError } from './edge-http.js';
import { isRecord } from './keys.js';
import { ReportQueue } from './report-queue.js';
import type { BatchVerificationReport } from './wire/physical.js';

/** What one {@link EdgeVerifier.flushReports} delivered. */
export interface EdgeReportFlush {
  /** Reports the service accepted. */
  delivered: number;
  /** Reports the service answered in `rejected` (e.g. an unknown jti); not retried. */
  refused: number;
  /** Reports still queued. */
  pending: number;
}

/** Answers that a retry of the same batch would get again: the batch is dropped, not requeued. */
const PERMANENT_STATUSES: ReadonlySet<number> = new Set([400, 404, 409, 413, 415, 422]);

/**
 * @internal
 * The reporting half of the edge verifier: a bounded queue of verification reports and the batch
 * upload to `POST /v1/physical/verifications` (`{reports: [...]}` → `{accepted, rejected: [{index,
 * code}]}`). Concurrent flushes share one.
 *
 * @example
 * ```ts
 * const reporter = new EdgeReporter(call, endpoints.verifications, 100, 10_000);
 * reporter.push({ jti, edgeNodeId: 'cell-4', result: 'accepted', atMs: Date.now() });
 * await reporter.flush(); // { delivered: 1, refused: 0, pending: 0 }
 * ```
 */
export class EdgeReporter {
  readonly #queue: ReportQueue;
  #flushing: Promise<EdgeReportFlush> | undefined;
  #delivered = 0;
  #refused = 0;
  #refusedBatches = 0;

  constructor(
    private readonly call: EdgeCallContext,
    private readonly endpoint: URL,
    private readonly batchSize: number,
    capacity: number,
  ) {
    this.#queue = new ReportQueue(capacity);
  }

  /** Reports waiting. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Whether a flush is in progress. */
  get flushing(): Promise<EdgeReportFlush> | undefined {
    return this.#flushing;
  }

  /** Whether a full batch is waiting. */
  get batchReady(): boolean {
    return this.#queue.length >= this.batchSize;
  }

  /** Totals since construction. */
  counters(): { delivered: number; refused: number; dropped: number } {
    return {
      delivered: this.#delivered,
      refused: this.#refused,
      dropped: this.#queue.dropped + this.#refusedBatches,
    };
  }

  /** Queues a report (dropping the oldest when full). */
  push(report: BatchVerificationReport): void {
    this.#queue.push(report);
  }

  /**
   * Sends the reports queued at the start, oldest first, in batches. On a failure it stops and
   * rejects with {@link EdgeServiceError}: the batch goes back to the front of the queue, unless the
   * service refused it as a whole with a status a retry would get again (then it is dropped and
   * counted).
   */
  flush(): Promise<EdgeReportFlush> {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flush(): Promise<EdgeReportFlush> {
    let remaining = this.#queue.length;
    let delivered = 0;
    let refused = 0;
    while (remaining > 0) {
      const batch = this.#queue.take(Math.min(this.batchSize, remaining));
      remaining -= batch.length;
      let answer: unknown;
      try {
        answer = await callService(this.call, 'POST', this.endpoint, { reports: batch });
      } catch (error) {
        if (error instanceof EdgeServiceError && PERMANENT_STATUSES.has(error.status ?? 0)) {
          this.#refusedBatches += batch.length;
        } else {
          this.#queue.putBack(batch);
        }
        throw error;
      }
      const rejected = isRecord(answer) && Array.isArray(answer.rejected) ? answer.rejected.length : 0;
      const refusedHere = Math.min(rejected, batch.length);
      refused += refusedHere;
      delivered += batch.length - refusedHere;
      this.#refused += refusedHere;
      this.#delivered += batch.length - refusedHere;
    }
    return { delivered, refused, pending: this.#queue.length };
  }
}
