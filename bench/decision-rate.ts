// POST /intent throughput over HTTP when the tenant's chain already holds --chain entries (issue 17:
// the decision throughput with and without tree maintenance, contract §15). The starting database
// (the tenant, its owner key and the chain, written in bulk, then one decision, which brings the
// Merkle tree up to the chain where there is one) is built once and kept in --template (with its
// keys in <template>.json); each run starts from a copy, so rounds of two checkouts can alternate.
// Background jobs are off, so that only decisions write. The empty Fastify route is measured with
// the same autocannon settings in the same run.
// Run: npx tsx --conditions=development bench/decision-rate.ts --template FILE [--chain 1000000]
//      [--duration 10] [--connections 32]
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from '../packages/server/src/app/build-server.js';
import { sealEntry } from '../packages/server/src/chain/audit-entry.js';
import { chainRepository } from '../packages/server/src/chain/chain-repository.js';
import { SERVER_CHECKPOINT_MS } from '../packages/server/src/cli/context.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { openStorage, type Storage } from '../packages/server/src/storage/database.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { approvedIntentRequest, measure, measureEmptyRoute, warmUp } from './load.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    template: { type: 'string' },
    chain: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
if (values.template === undefined) throw new Error('--template FILE is required');
const template = values.template;
const keysFile = `${template}.json`;

/** Appends entries sealed as appends seal them, in bulk, until the chain holds `length` entries. */
async function growTo(storage: Storage, length: number): Promise<void> {
  // The head row exists once anything was appended; lockHead creates it otherwise.
  const head = await storage.writeTransaction((trx) => chainRepository.lockHead(trx, 'bench', Date.now()));
  let index = head.lastIndex + 1;
  let previous = head.lastHash;
  const now = Date.now();
  while (index < length) {
    const end = Math.min(index + 10_000, length);
    await storage.writeTransaction(async (trx) => {
      for (let from = index; from < end; from += 500) {
        const rows = [];
        for (let i = from; i < Math.min(from + 500, end); i += 1) {
          const intentId = `01a2014e-fa12-72fe-ad37-${String(Math.floor(i / 3)).padStart(12, '0')}`;
          const sealed = sealEntry(
            'bench',
            i,
            previous,
            {
              correlationId: intentId,
              intentId,
              actorId: 'agent-7',
              actorType: 'agent',
              eventType: 'intent.decided',
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

async function serverOn(file: string, masterKey: Buffer) {
  const storage = openStorage({ sqliteFile: file, backgroundCheckpointMs: SERVER_CHECKPOINT_MS });
  const app = await buildServer({
    config: loadConfig({}),
    logger: process.env.BENCH_LOG === '1' ? { level: 'error' } : false,
    storage,
    clock: systemClock,
    masterKey,
    backgroundJobs: false,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    storage,
    base,
    async close() {
      await app.close();
      await storage.close();
    },
  };
}

async function decideOnce(base: string, key: string): Promise<void> {
  const response = await fetch(
    `${base}/intent`,
    approvedIntentRequest({ authorization: `Bearer ${key}`, 'x-tenant-id': 'bench' }),
  );
  if (response.status !== 200)
    throw new Error(`decision failed: ${response.status} ${await response.text()}`);
}

/** The starting database: the tenant `bench`, its owner key and a chain of --chain entries. */
async function build(file: string): Promise<{ masterKey: string; ownerKey: string }> {
  const storage = openStorage({ sqliteFile: file });
  await storage.migrate();
  const { ownerKey } = await createTenantService(storage, systemClock).create({
    id: 'bench',
    plan: 'enterprise',
    rateLimitPerMinute: 1_000_000,
  });
  await growTo(storage, Number(values.chain));
  await storage.close();
  const masterKey = randomBytes(32);
  const server = await serverOn(file, masterKey);
  await decideOnce(server.base, ownerKey.key);
  await server.close();
  return { masterKey: masterKey.toString('hex'), ownerKey: ownerKey.key };
}

if (!existsSync(template)) {
  const keys = await build(`${template}.part`);
  renameSync(`${template}.part`, template);
  writeFileSync(keysFile, JSON.stringify(keys), { mode: 0o600 });
}
const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as { masterKey: string; ownerKey: string };
const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
const file = path.join(dir, 'bench.db');
copyFileSync(template, file);

const duration = Number(values.duration);
const connections = Number(values.connections);
console.log(`machine: ${machineLine()}`);
await measureEmptyRoute({ connections, duration });

const server = await serverOn(file, Buffer.from(keys.masterKey, 'hex'));
const before = await chainRepository.head(server.storage.db, 'bench');
const request = approvedIntentRequest({ authorization: `Bearer ${keys.ownerKey}`, 'x-tenant-id': 'bench' });
await warmUp(`${server.base}/intent`, request);
await measure(
  `POST /intent APPROVED, chain of ${((before?.lastIndex ?? -1) + 1).toLocaleString('en-US')} entries at the start`,
  `${server.base}/intent`,
  { ...request, connections, duration },
);
await server.close();
rmSync(dir, { recursive: true, force: true });
