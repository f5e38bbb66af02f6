import { parseArgs } from 'node:util';
import { benchEngine } from './bench-storage.js';
import { profiled } from './cpu-profile.js';
import { startEmbeddedServer } from './embedded-server.js';
import { approvedIntentRequest, emptyRouteApp } from './load.js';
import { machineLine } from './machine.js';

// What one `POST /intent` APPROVED costs the server, in process (Fastify's inject, no sockets and
// no load generator sharing the cores): the process's CPU time per decision (every thread: the
// event loop, the thread pool, the WAL checkpointer) and the event loop's busy time per decision.
// Less noisy than throughput over HTTP on a shared machine, so it is the figure to compare code by.
const { values } = parseArgs({
  options: {
    decisions: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    profile: { type: 'string' },
    // postgres: a schema of its own on DATABASE_URL (the database's own CPU is not counted).
    engine: { type: 'string', default: 'sqlite' },
  },
});
const decisions = Number(values.decisions);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const engine = benchEngine(values.engine);

type Inject = () => Promise<{ statusCode: number }>;

async function run(title: string, count: number, inject: Inject, expected: number) {
  const cpuBefore = process.cpuUsage();
  const loopBefore = performance.eventLoopUtilization();
  const started = performance.now();
  let next = 0;
  let wrong = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        if ((await inject()).statusCode !== expected) wrong += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const loop = performance.eventLoopUtilization(loopBefore);
  console.log(
    `${title.padEnd(36)} ${Math.round(count / seconds)
      .toString()
      .padStart(6)} /s  CPU ${((cpu.user + cpu.system) / count).toFixed(1)} µs each ` +
      `(user ${(cpu.user / count).toFixed(1)}, system ${(cpu.system / count).toFixed(1)})  ` +
      `event loop ${((loop.active * 1000) / count).toFixed(1)} µs each  unexpected answers ${wrong}`,
  );
}

console.log(`machine: ${machineLine()}`);
console.log(`engine: ${engine}`);
console.log(`in process: ${decisions} requests per round, ${concurrency} at a time, ${rounds} rounds`);

const empty = emptyRouteApp();
await empty.ready();
const emptyInject: Inject = () => empty.inject({ method: 'GET', url: '/' });

const server = await startEmbeddedServer(engine);
const request = approvedIntentRequest(server.headers);
const decide: Inject = () =>
  server.app.inject({ method: 'POST', url: '/intent', headers: request.headers, payload: request.body });
// Warm up: first-use key creation, policy compilation, JIT.
await run('warm-up', 2_000, decide, 200);
for (let round = 1; round <= rounds; round += 1) {
  await run(`empty route, round ${round}`, decisions, emptyInject, 200);
  const measured = () => run(`POST /intent APPROVED, round ${round}`, decisions, decide, 200);
  if (round === rounds) await profiled(values.profile, measured);
  else await measured();
}
const verify = await server.app.inject({
  method: 'POST',
  url: '/audit/verify-chain',
  headers: server.headers,
});
console.log(`chain after the runs: ${verify.json().length} entries, valid=${verify.json().valid}`);
await server.close();
await empty.close();
