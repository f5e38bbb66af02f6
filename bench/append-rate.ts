// Audit appends per second through chainRepository.append and the decision path's group commit
// (batches of up to 64), on SQLite. Imports only code that predates the transparency log, so the
// same file runs in a checkout of the commit before the tree (see bench/RESULTS.md, issue 17).
// Run: npx tsx --conditions=development bench/append-rate.ts [--appends 20000] [--concurrency 64]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AuditEvent } from '../packages/server/src/chain/audit-entry.js';
import { chainRepository } from '../packages/server/src/chain/chain-repository.js';
import { openStorage } from '../packages/server/src/storage/database.js';
import { createGroupCommit } from '../packages/server/src/storage/group-commit.js';
import { tenantRepository } from '../packages/server/src/tenancy/tenant-repository.js';

const { values } = parseArgs({
  options: {
    appends: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '64' },
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

const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
const storage = openStorage({ sqliteFile: path.join(dir, 'bench.db'), sqliteSynchronous: 'NORMAL' });
await storage.migrate();
await tenantRepository.insert(
  storage.db,
  { id: 'bench', name: 'bench', plan: 'enterprise', rateLimitPerMinute: 1 },
  Date.now(),
);
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
const total = Number(values.appends);
const concurrency = Number(values.concurrency);
let n = 0;
const start = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let i = 0; i < total / concurrency; i++) {
      n += 1;
      await grouped.submit(event(n));
    }
  }),
);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  `appends/s: ${Math.round(total / seconds)} (${total} in ${seconds.toFixed(2)} s, ${concurrency} writers, ${batches} transactions)`,
);
await storage.close();
rmSync(dir, { recursive: true, force: true });
