export interface Stats {
  n: number;
  median: number;
  p99: number;
}

/**
 * Times single synchronous calls for about `budgetSeconds` after a short warm-up, up to
 * `maxSamples`; latencies in microseconds.
 */
export function measure(work: (i: number) => unknown, budgetSeconds: number, maxSamples: number): Stats {
  const warmEnd = process.hrtime.bigint() + BigInt(Math.round(Math.min(0.2, budgetSeconds / 5) * 1e9));
  let i = 0;
  while (process.hrtime.bigint() < warmEnd) work(i++);
  const samples: number[] = [];
  const end = process.hrtime.bigint() + BigInt(Math.round(budgetSeconds * 1e9));
  while (samples.length < maxSamples) {
    const t0 = process.hrtime.bigint();
    work(i++);
    const t1 = process.hrtime.bigint();
    samples.push(Number(t1 - t0) / 1e3);
    if (t1 > end && samples.length >= 20) break;
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { n: samples.length, median: at(0.5), p99: at(0.99) };
}

/** A microsecond figure as `12.34 µs` or `1.20 ms`, right-aligned. */
export function formatMicros(value: number, digits = 2): string {
  return (value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(digits)} µs`).padStart(9);
}
