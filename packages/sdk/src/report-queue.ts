import type { BatchVerificationReport } from './wire/physical.js';

/**
 * @internal
 * A bounded FIFO of reports waiting to be sent. When full, the oldest report is dropped to make
 * room (and counted): recent verifications matter more than old ones, and an outage must never
 * grow memory without limit. A batch that could not be delivered goes back to the front, so the
 * order of delivery stays the order of verification.
 *
 * @example
 * ```ts
 * const queue = new ReportQueue(2);
 * queue.push(a); queue.push(b); queue.push(c); // a is dropped
 * queue.dropped; // 1
 * const batch = queue.take(10); // [b, c]
 * queue.putBack(batch); // delivery failed: b, c are first again
 * ```
 */
export class ReportQueue {
  /** Live reports are `#items[#head..]`; dropping or taking from the front moves `#head`. */
  #items: BatchVerificationReport[] = [];
  #head = 0;
  #dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new TypeError('ReportQueue: capacity must be a positive integer');
    }
  }

  /** Reports waiting. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Reports dropped so far because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Appends a report, dropping the oldest one when the queue is full; O(1) amortized. */
  push(report: BatchVerificationReport): void {
    if (this.length >= this.capacity) this.#discardOldest(this.length - this.capacity + 1);
    this.#items.push(report);
  }

  /** Removes and returns up to `max` of the oldest reports. */
  take(max: number): BatchVerificationReport[] {
    const batch = this.#items.slice(this.#head, this.#head + Math.max(0, max));
    this.#head += batch.length;
    this.#compact();
    return batch;
  }

  /**
   * Returns an undelivered batch to the front. Reports that no longer fit (newer ones arrived in
   * the meantime) are dropped oldest first and counted.
   */
  putBack(batch: readonly BatchVerificationReport[]): void {
    this.#items = [...batch, ...this.#items.slice(this.#head)];
    this.#head = 0;
    if (this.length > this.capacity) this.#discardOldest(this.length - this.capacity);
  }

  #discardOldest(count: number): void {
    this.#head += count;
    this.#dropped += count;
    this.#compact();
  }

  /** Drops the consumed front once it is at least half the array, so memory stays O(capacity). */
  #compact(): void {
    if (this.#head > 0 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}
