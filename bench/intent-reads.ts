// Reading one intent while the tenant's chain grows (issue 11, item 9): GET /intent/:id, its
// receipt and its evidence bundle, for an intent decided at the start of the chain and one decided
// at its end, at chain lengths up to 1,000,000 entries.
// Run: npx tsx --conditions=development bench/intent-reads.ts --engine sqlite|postgres
//      [--lengths 1000,100000,1000000] [--requests 200]
//
// The intents are real decisions (POST /intent); the entries between them are sealed and chained
// exactly as appends seal them, written in bulk (as bench/audit.ts does), 4 per filler intent.
// Requests go through app.inject, one at a time, so the figures are the server's own latency.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { buildServer } from '../packages/server/src/app/build-server.js';
import { sealEntry } from '../packages/server/src/chain/audit-entry.js';
import { chainRepository } from '../packages/server/src/chain/chain-repository.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { benchEngine, openBenchStorage } from './bench-storage.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    lengths: { type: 'string', default: '1000,100000,1000000' },
    requests: { type: 'string', default: '200' },
  },
});
const lengths = values.lengths.split(',').map(Number);
const requests = Number(values.requests);

const { storage, cleanup } = await openBenchStorage(benchEngine(values.engine), { walCheckpoints: 'inline' });
const { ownerKey } = await createTenantService(storage, systemClock).create({
  id: 'bench',
  plan: 'enterprise',
  rateLimitPerMinute: 1_000_000,
});
const app = await buildServer({
  config: loadConfig({}),
  storage,
  clock: systemClock,
  masterKey: randomBytes(32),
  backgroundJobs: false,
});
const headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'bench' };

async function decide(): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/intent',
    headers,
    payload: {
      tenantId: 'bench',
      actor: { id: 'agent-7', type: 'agent' },
      targetSystem: 'acme/payments',
      proposedAction: 'list open pull requests',
      args: { state: 'open' },
      riskContext: { baseRiskScore: 10 },
    },
  });
  if (response.statusCode !== 200) throw new Error(`decision failed: ${response.body}`);
  return response.json().intentId as string;
}

/** Appends filler entries (4 per made-up intent) until the chain holds `length` entries. */
async function growTo(length: number): Promise<void> {
  const head = await chainRepository.head(storage.db, 'bench');
  let index = (head?.lastIndex ?? -1) + 1;
  let previous = head?.lastHash ?? '';
  const now = Date.now();
  while (index < length) {
    const end = Math.min(index + 10_000, length);
    await storage.writeTransaction(async (trx) => {
      for (let from = index; from < end; from += 500) {
        const rows = [];
        for (let i = from; i < Math.min(from + 500, end); i += 1) {
          const intentId = `01a2014e-fa12-72fe-ad37-${String(Math.floor(i / 4)).padStart(12, '0')}`;
          const sealed = sealEntry(
            'bench',
            i,
            previous,
            {
              correlationId: intentId,
              intentId,
              actorId: 'agent-7',
              actorType: 'agent',
              eventType: i % 4 === 0 ? 'intent.received' : 'intent.decided',
              payload: { n: i, targetSystem: 'acme/payments', decision: 'APPROVED' },
            },
            now,
          );
          previous = sealed.entry.entryHash;
          rows.push({
            tenant_id: 'bench',
            idx: i,
            correlation_id: intentId,
            intent_id: intentId,
            actor_id: 'agent-7',
            actor_type: 'agent',
            event_type: sealed.entry.eventType,
            target_system: 'acme/payments',
            previous_hash: sealed.entry.previousHash,
            entry_hash: sealed.entry.entryHash,
            canonical: sealed.canonical,
            created_at: now,
          });
        }
        await trx.insertInto('audit_entries').values(rows).execute();
      }
      await trx
        .updateTable('audit_heads')
        .set({ last_index: end - 1, last_hash: previous })
        .where('tenant_id', '=', 'bench')
        .execute();
    });
    index = end;
  }
}

function stats(samples: number[]): string {
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return `median ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms`;
}

async function measure(url: string): Promise<string> {
  const samples: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const t0 = performance.now();
    const response = await app.inject({ method: 'GET', url, headers });
    samples.push(performance.now() - t0);
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  }
  return stats(samples);
}

console.log(`machine: ${machineLine()}`);
console.log(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`engine: ${values.engine}; ${requests} sequential requests per figure (app.inject)`);
const early = await decide();
let late = early;
for (const length of lengths) {
  const started = performance.now();
  await growTo(length - 3);
  late = await decide();
  const head = await chainRepository.head(storage.db, 'bench');
  console.log(
    `\nchain of ${((head?.lastIndex ?? 0) + 1).toLocaleString('en-US')} entries (filled in ${((performance.now() - started) / 1000).toFixed(1)} s):`,
  );
  for (const [name, id] of [
    ['first intent', early],
    ['last intent', late],
  ] as const) {
    for (const suffix of ['', '/receipt', '/evidence-bundle']) {
      console.log(
        `  GET /intent/:id${suffix.padEnd(16)} ${name.padEnd(13)} ${await measure(`/intent/${id}${suffix}`)}`,
      );
    }
  }
}
console.log(
  `\nload average at end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await app.close();
await cleanup();
