// Audit appends per second through chainRepository.append and the decision path's group commit
// (batches of up to 64), on SQLite. Imports only code that predates the transparency log, so the
// same file (with bench/bulk-chain.ts copied beside it) runs in a checkout of the commit before the
// tree (see bench/RESULTS.md, issue 17).
// --chain N starts from a chain of N entries (written in bulk, then one untimed append, which with
// the tree brings the tree up to the chain); --template FILE keeps that starting database in FILE
// and starts from a copy of it when FILE exists, so that rounds do not rebuild it.
// Run: npx tsx --conditions=development bench/append-rate.ts [--appends 20000] [--concurrency 64]
//      [--chain 1000000] [--template FILE]
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AuditEvent } from '../packages/server/src/chain/audit-entry.js';
import { chainRepository } from '../packages/server/src/chain/chain-repository.js';
import { openStorage } from '../packages/server/src/storage/database.js';
import { createGroupCommit } from '../packages/server/src/storage/group-commit.js';
import { tenantRepository } from '../packages/server/src/tenancy/tenant-repository.js';
import { writeBulkChain } from './bulk-chain.js';

const { values } = parseArgs({
  options: {
    appends: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '64' },
    chain: { type: 'string', default: '0' },
    template: { type: 'string' },
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

/** A migrated database holding the tenant `bench` and its chain of `--chain` entries. */
async function build(file: string): Promise<void> {
  const storage = openStorage({ sqliteFile: file, sqliteSynchronous: 'NORMAL' });
  await storage.migrate();
  await tenantRepository.insert(
    storage.db,
    { id: 'bench', name: 'bench', plan: 'enterprise', rateLimitPerMinute: 1 },
    Date.now(),
  );
  const length = Number(values.chain);
  if (length > 0) {
    await writeBulkChain(storage, 'bench', length, event);
    await storage.writeTransaction((trx) => chainRepository.append(trx, 'bench', [event(-1)], Date.now()));
  }
  await storage.close();
}

const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
const file = path.join(dir, 'bench.db');
const template = values.template;
if (template === undefined) await build(file);
else {
  if (!existsSync(template)) {
    await build(`${template}.part`);
    renameSync(`${template}.part`, template);
  }
  copyFileSync(template, file);
}
const storage = openStorage({ sqliteFile: file, sqliteSynchronous: 'NORMAL' });
const head = await chainRepository.head(storage.db, 'bench');
console.log(`chain before the appends: ${(head?.lastIndex ?? -1) + 1} entries`);
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
