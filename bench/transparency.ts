// The transparency log over a long chain (issue 17): a chain of --chain entries written in bulk
// without its tree (as a chain written before the tree existed), the time `syncTree` takes to bring
// the tree up to it, then inclusion proofs for random indexes against the full size and consistency
// proofs for random (from, to) pairs through the transparency service: median and p99. A sample of
// the proofs is checked with the SDK verifiers against the roots of signed checkpoints and leaf
// hashes computed from the stored entries. Then the same proofs over HTTP (GET /audit/:t/proof/…
// with the owner's API key, so authentication included): one request at a time (latency) and
// 16 connections (throughput), each beside the empty Fastify route measured the same way in the
// same run.
// Run: npx tsx --conditions=development bench/transparency.ts [--chain 1000000] [--proofs 5000] [--verify 200]
//      [--http-requests 2000] [--ceiling-duration 5] [--profile FILE] [--engine sqlite|postgres]
//      [--profile-http FILE] (postgres needs DATABASE_URL; --profile writes a CPU profile of the
//      service-level inclusion proofs, --profile-http one of the saturated HTTP inclusion run)
import { randomBytes, randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  hashFromHex,
  leafHash,
  parseCheckpoint,
  parseSignedNote,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '@authority-runtime/sdk';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildServer } from '../packages/server/src/app/build-server.js';
import type { AuditEvent } from '../packages/server/src/chain/audit-entry.js';
import { chainRepository } from '../packages/server/src/chain/chain-repository.js';
import { subtreeHashRepository } from '../packages/server/src/chain/subtree-hash-repository.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { createSecretBox } from '../packages/server/src/crypto/secret-box.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { createTransparencyService } from '../packages/server/src/transparency/transparency-service.js';
import { benchEngine, openBenchStorage } from './bench-storage.js';
import { writeBulkChain } from './bulk-chain.js';
import { profiled } from './cpu-profile.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    chain: { type: 'string', default: '1000000' },
    proofs: { type: 'string', default: '5000' },
    verify: { type: 'string', default: '200' },
    'http-requests': { type: 'string', default: '2000' },
    'ceiling-duration': { type: 'string', default: '5' },
    profile: { type: 'string' },
    'profile-http': { type: 'string' },
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

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const summary = (timings: number[]) => {
  const sorted = [...timings].sort((a, b) => a - b);
  return `median ${percentile(sorted, 50).toFixed(3)} ms, p99 ${percentile(sorted, 99).toFixed(3)} ms, max ${(sorted.at(-1) ?? 0).toFixed(3)} ms`;
};

console.log(`machine: ${machineLine()}`);
console.log(`engine: ${values.engine}`);
const chainLength = Number(values.chain);
const proofs = Number(values.proofs);
const sample = Number(values.verify);
const { storage, cleanup } = await openBenchStorage(benchEngine(values.engine), { walCheckpoints: 'inline' });
const { ownerKey } = await createTenantService(storage, systemClock).create({
  id: 'bench',
  plan: 'enterprise',
  rateLimitPerMinute: 1_000_000,
});
const masterKey = randomBytes(32);

let start = process.hrtime.bigint();
await writeBulkChain(storage, 'bench', chainLength, event);
console.log(
  `bulk chain of ${chainLength.toLocaleString('en-US')} entries written in ${(ms(start) / 1000).toFixed(2)} s`,
);

start = process.hrtime.bigint();
const head = await storage.writeTransaction((trx) => chainRepository.syncTree(trx, 'bench', Date.now()));
const syncSeconds = ms(start) / 1000;
const stored = await subtreeHashRepository.count(storage.db, 'bench');
console.log(
  `syncTree: tree of ${head.tree.treeSize.toLocaleString('en-US')} leaves in ${syncSeconds.toFixed(2)} s ` +
    `(${stored.toLocaleString('en-US')} subtree hashes stored)`,
);
if (head.tree.treeSize !== chainLength) throw new Error('the tree does not cover the chain');

const service = createTransparencyService({
  storage,
  clock: systemClock,
  secretBox: createSecretBox(masterKey),
  originPrefix: 'bench.example',
});
const rootAt = async (size: number) =>
  parseCheckpoint(parseSignedNote(await service.checkpointAt('bench', size)).text).rootHash;
const entryLeaf = async (index: number) => {
  const row = await storage.db
    .selectFrom('audit_entries')
    .select('entry_hash')
    .where('tenant_id', '=', 'bench')
    .where('idx', '=', index)
    .executeTakeFirstOrThrow();
  return leafHash(row.entry_hash);
};

// Warm-up: the first reads fault the index pages in.
for (let i = 0; i < 200; i++) await service.inclusionProof('bench', randomInt(chainLength), chainLength);

const fullRoot = await rootAt(chainLength);
const inclusion: number[] = [];
let inclusionChecked = 0;
await profiled(values.profile, async () => {
  for (let i = 0; i < proofs; i++) {
    const index = randomInt(chainLength);
    const t = process.hrtime.bigint();
    const proof = await service.inclusionProof('bench', index, chainLength);
    inclusion.push(ms(t));
    if (i < sample) {
      const outcome = verifyInclusionProof({
        index,
        treeSize: chainLength,
        leafHash: await entryLeaf(index),
        proof: proof.proof.map(hashFromHex),
        rootHash: fullRoot,
      });
      if (!outcome.valid) throw new Error(`inclusion proof of ${index} invalid: ${outcome.reason}`);
      inclusionChecked += 1;
    }
  }
});
console.log(
  `inclusion proof, random index, tree size ${chainLength.toLocaleString('en-US')} (${proofs} proofs): ${summary(inclusion)}; ` +
    `${inclusionChecked} verified with verifyInclusionProof against the signed checkpoint`,
);

const consistency: number[] = [];
let consistencyChecked = 0;
for (let i = 0; i < proofs; i++) {
  const to = 1 + randomInt(chainLength);
  const from = 1 + randomInt(to);
  const t = process.hrtime.bigint();
  const proof = await service.consistencyProof('bench', from, to);
  consistency.push(ms(t));
  if (i < sample) {
    const outcome = verifyConsistencyProof({
      fromSize: from,
      fromRoot: await rootAt(from),
      toSize: to,
      toRoot: await rootAt(to),
      proof: proof.proof.map(hashFromHex),
    });
    if (!outcome.valid) throw new Error(`consistency proof ${from} → ${to} invalid: ${outcome.reason}`);
    consistencyChecked += 1;
  }
}
console.log(
  `consistency proof, random 1 ≤ from ≤ to ≤ ${chainLength.toLocaleString('en-US')} (${proofs} proofs): ${summary(consistency)}; ` +
    `${consistencyChecked} verified with verifyConsistencyProof against signed checkpoints`,
);
// Over HTTP: the server as `authority serve` builds it (without its background jobs, so that
// checkpoint sweeps do not run during the measurement), the owner's API key on every request.
const app = await buildServer({
  config: loadConfig({}),
  storage,
  clock: systemClock,
  masterKey,
  backgroundJobs: false,
});
const base = await listen(app);
const headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'bench' };
const inclusionPath = () =>
  `/audit/bench/proof/inclusion?index=${randomInt(chainLength)}&treeSize=${chainLength}`;
const consistencyPath = () => {
  const to = 1 + randomInt(chainLength);
  return `/audit/bench/proof/consistency?from=${1 + randomInt(to)}&to=${to}`;
};

const empty = Fastify();
empty.get('/', async () => ({ ok: true }));
const emptyBase = await listen(empty);

/** One request at a time: each request's time from send to the parsed body, in ms. */
async function sequential(requests: number, url: () => string, requestHeaders: Record<string, string>) {
  const timings: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t = process.hrtime.bigint();
    const response = await fetch(url(), { headers: requestHeaders });
    await response.json();
    timings.push(ms(t));
    if (response.status !== 200) throw new Error(`${url()} answered ${response.status}`);
  }
  return timings;
}

const httpRequests = Number(values['http-requests']);
// Warm-up of both servers and of fetch's connection pool.
await sequential(200, () => `${base}${inclusionPath()}`, headers);
await sequential(200, () => `${emptyBase}/`, {});
const sequentialEmpty = await sequential(httpRequests, () => `${emptyBase}/`, {});
const sequentialInclusion = await sequential(httpRequests, () => `${base}${inclusionPath()}`, headers);
const sequentialConsistency = await sequential(httpRequests, () => `${base}${consistencyPath()}`, headers);
console.log(`HTTP, one request at a time (${httpRequests} each, fetch, keep-alive):`);
console.log(`  empty Fastify route (ceiling): ${summary(sequentialEmpty)}`);
console.log(`  GET /audit/bench/proof/inclusion: ${summary(sequentialInclusion)}`);
console.log(`  GET /audit/bench/proof/consistency: ${summary(sequentialConsistency)}`);

const ceilingSeconds = Number(values['ceiling-duration']);
async function saturated(
  title: string,
  url: string,
  path: () => string,
  requestHeaders: Record<string, string>,
) {
  const result = await autocannon({
    url,
    connections: 16,
    duration: ceilingSeconds,
    requests: [
      { method: 'GET', headers: requestHeaders, setupRequest: (request) => ({ ...request, path: path() }) },
    ],
  });
  const bad = result.errors + result.timeouts + (result.non2xx ?? 0);
  console.log(
    `  ${title}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, ` +
      `p99 ${result.latency.p99} ms, non-2xx/errors ${bad}`,
  );
}
console.log(`HTTP, 16 connections, ${ceilingSeconds} s each (autocannon):`);
await saturated('empty Fastify route (ceiling)', emptyBase, () => '/', {});
await profiled(values['profile-http'], () =>
  saturated('GET /audit/bench/proof/inclusion', base, inclusionPath, headers),
);
await saturated('GET /audit/bench/proof/consistency', base, consistencyPath, headers);
await empty.close();
await app.close();
await cleanup();

async function listen(server: { listen(options: { port: number; host: string }): Promise<string> }) {
  return server.listen({ port: 0, host: '127.0.0.1' });
}
