import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { tracingEnabled, withSpan, withSyncSpan } from '../packages/server/src/foundation/tracing.js';
import { type EmbeddedServer, startEmbeddedServer } from './embedded-server.js';
import { approvedIntentRequest, measure, measureEmptyRoute, warmUp } from './load.js';
import { machineLine } from './machine.js';

/**
 * What tracing costs. Off (no OTEL_EXPORTER_OTLP_ENDPOINT): the span helpers against direct calls,
 * per call, then `POST /intent` over HTTP before and after a run with tracing on (the SDK started
 * in-process, exporting over OTLP/HTTP to a local collector that accepts and drops everything),
 * beside the empty-route ceiling of the same run.
 */
const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const CALLS = 20_000_000;

function nsPerCall(work: () => unknown): number {
  for (let i = 0; i < 1_000_000; i += 1) work();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) work();
  return Number(process.hrtime.bigint() - started) / CALLS;
}

async function nsPerAsyncCall(work: () => Promise<unknown>): Promise<number> {
  const calls = CALLS / 10;
  for (let i = 0; i < 100_000; i += 1) await work();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) await work();
  return Number(process.hrtime.bigint() - started) / calls;
}

console.log(`machine: ${machineLine()}`);

let sink = 0;
const step = (n: number) => {
  sink = (sink + n) | 0;
  return sink;
};
const direct = nsPerCall(() => step(1));
// As the gate loop calls a gate (evaluate-intent.ts).
const wrapped = nsPerCall(() => (tracingEnabled() ? withSyncSpan('gate', {}, () => step(1)) : step(1)));
const directAsync = await nsPerAsyncCall(async () => step(1));
const wrappedAsync = await nsPerAsyncCall(() => withSpan('work', {}, async () => step(1)));
console.log(
  `tracing off, a gate call:  direct ${direct.toFixed(2)} ns/call, wrapped ${wrapped.toFixed(2)} ns/call`,
);
console.log(
  `tracing off, async span helper: direct ${directAsync.toFixed(1)} ns/call, wrapped ${wrappedAsync.toFixed(1)} ns/call`,
);

console.log(
  `autocannon: ${connections} connections, ${duration} s per run, load generator in a worker thread`,
);
await measureEmptyRoute({ connections, duration });

/** `POST /intent` APPROVED against one embedded server, warmed up first unless told otherwise. */
async function decisions(title: string, server: EmbeddedServer, { warm = true } = {}) {
  const url = `${server.base}/intent`;
  const request = approvedIntentRequest(server.headers);
  if (warm) await warmUp(url, request);
  await measure(title, url, { ...request, connections, duration });
}

const off = await startEmbeddedServer();
await decisions('POST /intent APPROVED, tracing off', off);

// A collector that reads each export and answers 200.
let exported = 0;
const collector = http.createServer((req, res) => {
  req.on('data', (chunk: Buffer) => {
    exported += chunk.length;
  });
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
const { startTracing } = await import('../packages/server/src/app/tracing-sdk.js');
const tracing = startTracing();
const on = await startEmbeddedServer();
await decisions('POST /intent APPROVED, tracing on (OTLP/HTTP)', on);
await tracing.shutdown();
console.log(`exported ${(exported / 1e6).toFixed(1)} MB of OTLP JSON`);
await on.close();
collector.close();

await decisions('POST /intent APPROVED, tracing off again', off, { warm: false });
await off.close();
console.log(`sink ${sink}`);
