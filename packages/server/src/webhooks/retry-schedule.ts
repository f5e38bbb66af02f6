/** What one attempt's answer means for the delivery (contract §7). */
export type AttemptVerdict = 'succeeded' | 'gone' | 'failed';

/**
 * 2xx is success; 410 Gone disables the endpoint; everything else (other statuses, redirects, which
 * are never followed, timeouts and network errors, passed as `undefined`) is a failure to retry.
 * Pure.
 */
export function verdictOf(status: number | undefined): AttemptVerdict {
  if (status === undefined) return 'failed';
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 410) return 'gone';
  return 'failed';
}

/**
 * The wait before the next attempt after `attemptsMade` failed attempts, or `null` when the
 * schedule is exhausted and the delivery is dead. Exponential backoff comes from the schedule
 * (≈ 10 s, 30 s, 2 min … 6 h by default) and full jitter (contract §7) draws the wait uniformly
 * in [0, step], so deliveries that failed together do not all retry at the same instant. `random`
 * returns a number in [0, 1). Pure.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  attemptsMade: number,
  random: () => number,
): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError('attemptsMade counts the attempts made so far, starting at 1');
  }
  const step = schedule[attemptsMade - 1];
  if (step === undefined) return null;
  return Math.min(step, Math.floor(random() * (step + 1)));
}
