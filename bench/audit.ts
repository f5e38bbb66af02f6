// Audit appends per second for one tenant (one transaction per append, as a decision commits),
// and verify-chain over a long chain: time and peak memory.
// With --group-commit, appends go through the decision path's group commit (storage/group-commit.ts):
// concurrent appends share one transaction, each acknowledged only after that transaction committed.
// Run: npx tsx --conditions=development bench/audit.ts --engine sqlite|postgres [--appends 5000] [--concurrency 1,8] [--chain 1000000]
//      [--synchronous NORMAL|FULL] [--group-commit] [--profile verify.cpuprofile]
import { parseArgs } from 'node:util';
import { verifyStoredChain } from '../packages/server/src/audit/stored-chain-verification.js';
import type { AuditEvent } from '../packages/server/src/chain/audit-entry.js';
import { chainRepository } from '../packages/server/src/chain/chain-repository.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { createGroupCommit } from '../packages/server/src/storage/group-commit.js';
import { tenantRepository } from '../packages/server/src/tenancy/tenant-repository.js';
import { benchEngine, openBenchStorage } from './bench-storage.js';
import { writeBulkChain } from './bulk-chain.js';
import { profiled } from './cpu-profile.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    appends: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '1,8' },
    chain: { type: 'string', default: '0' },
    synchronous: { type: 'string', default: 'NORMAL' },
    'group-commit': { type: 'boolean', default: false },
    // Writes a CPU profile of the chain verification.
    profile: { type: 'string' },
  },
});

const event = (n: number): AuditEvent => ({
  correlationId: '01a2014e-fa12-72fe-ad37-ce9fbf547fe6',
  intentId: '01a2014e-fa12-72fe-ad37-ce9fbf547fe7',
  actorId: 'agent-7',
  actorType: 'service',
  eventType: 'intent.decided',
  payload: {
    n,
    decision: 'APPROVED',
    riskScore: 35,
    targetSystem: 'acme/payments',
    rationale: ['starter allow'],
  },
});

const { storage, cleanup } = await openBenchStorage(benchEngine(values.engine), {
  walCheckpoints: 'inline',
  sqliteSynchronous: values.synchronous === 'FULL' ? 'FULL' : 'NORMAL',
});
await tenantRepository.insert(
  storage.db,
  { id: 'bench', name: 'bench', plan: 'enterprise', rateLimitPerMinute: 1 },
  Date.now(),
);
console.log(`machine: ${machineLine()}`);
console.log(
  `engine: ${values.engine}${values.engine === 'sqlite' ? ` (synchronous=${values.synchronous})` : ''}`,
);

// One append per submitted event; the decision path's batch limit (intent/use-cases/decision-loop.ts).
let batches = 0;
const grouped = createGroupCommit<AuditEvent, string>({
  storage,
  maxBatch: 64,
  apply: async (trx, events) => {
    const { entries } = await chainRepository.append(trx, 'bench', events, Date.now());
    return entries.map((entry) => entry.entryHash);
  },
  onCommit: () => {
    batches += 1;
  },
});
const appendOne = values['group-commit']
  ? (e: AuditEvent) => grouped.submit(e)
  : (e: AuditEvent) =>
      storage.writeTransaction((trx) => chainRepository.append(trx, 'bench', [e], Date.now()));

let n = 0;
for (const concurrency of values.concurrency.split(',').map(Number)) {
  const total = Number(values.appends);
  const batchesBefore = batches;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = 0; i < total / concurrency; i++) {
        n += 1;
        await appendOne(event(n));
      }
    }),
  );
  const secondsTaken = Number(process.hrtime.bigint() - start) / 1e9;
  const mode = values['group-commit'] ? `, group commit (${batches - batchesBefore} transactions)` : '';
  console.log(
    `appends, ${concurrency} concurrent writer(s)${mode}: ${Math.round(total / secondsTaken)} /s (${total} in ${secondsTaken.toFixed(2)} s)`,
  );
}

const chainLength = Number(values.chain);
if (chainLength > 0) {
  // Build a long chain quickly with bulk inserts (the same sealing code as appends), then verify it.
  await storage.db.deleteFrom('audit_entries').execute();
  await storage.db.deleteFrom('audit_heads').execute();
  await writeBulkChain(storage, 'bench', chainLength, event);
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const start = process.hrtime.bigint();
  const result = await profiled(values.profile, () =>
    verifyStoredChain(storage, systemClock, 'bench', async () => undefined),
  );
  const secondsTaken = Number(process.hrtime.bigint() - start) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(
    `verify-chain over ${chainLength.toLocaleString('en-US')} entries: valid=${result.valid} in ${secondsTaken.toFixed(2)} s ` +
      `(${Math.round(chainLength / secondsTaken).toLocaleString('en-US')} entries/s), RSS before ${(baseline / 2 ** 20).toFixed(0)} MiB, ` +
      `peak ${(peak / 2 ** 20).toFixed(0)} MiB (+${((peak - baseline) / 2 ** 20).toFixed(0)} MiB)`,
  );
}
await cleanup();
