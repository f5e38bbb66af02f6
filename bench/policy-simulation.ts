// Policy simulation (contract §16): POST /authority/policy/simulate replaying 10,000 recorded
// intents against a draft, through app.inject (the server's own latency), beside GET /health of
// the same run (the empty-route ceiling). Target: 10,000 intents in at most 2 s.
// Run: npx tsx --conditions=development bench/policy-simulation.ts [--intents 10000] [--runs 5]
//
// The intents are written in bulk through the intent repository with the requests and decisions
// the starter policy gives them (evaluated as the decision loop does): reads, writes, floor matches,
// each with a few args, from 20 actors.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { v7 as uuidv7 } from 'uuid';
import { buildServer } from '../packages/server/src/app/build-server.js';
import { loadConfig } from '../packages/server/src/config/config.js';
import { systemClock } from '../packages/server/src/foundation/clock.js';
import { NO_BUDGETS } from '../packages/server/src/intent/domain/budgets.js';
import { evaluateIntent } from '../packages/server/src/intent/domain/evaluate-intent.js';
import type { IntentRecord } from '../packages/server/src/intent/domain/intent-record.js';
import type { IntentRequest } from '../packages/server/src/intent/domain/intent-request.js';
import { DEFAULT_THRESHOLDS } from '../packages/server/src/intent/domain/thresholds.js';
import { intentRepository } from '../packages/server/src/intent/repositories/intent-repository.js';
import { compilePolicy } from '../packages/server/src/policy/compile-policy.js';
import { starterRules } from '../packages/server/src/policy/packs.js';
import { openStorage } from '../packages/server/src/storage/database.js';
import { createTenantService } from '../packages/server/src/tenancy/tenant-service.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: { intents: { type: 'string', default: '10000' }, runs: { type: 'string', default: '5' } },
});
const intents = Number(values.intents);
const runs = Number(values.runs);

const dir = mkdtempSync(path.join(tmpdir(), 'authority-bench-'));
const storage = openStorage({ sqliteFile: path.join(dir, 'bench.db') });
await storage.migrate();
const { ownerKey } = await createTenantService(storage, systemClock).create({
  id: 'bench',
  plan: 'enterprise',
  rateLimitPerMinute: 1_000_000,
});

const ACTIONS = [
  'list open pull requests',
  'merge pull request 42',
  'push the release branch',
  'rm -rf /srv/cache',
];
const starter = compilePolicy(starterRules());
const now = Date.now();
for (let from = 0; from < intents; from += 500) {
  const batch: IntentRecord[] = [];
  for (let i = from; i < Math.min(from + 500, intents); i += 1) {
    const request: IntentRequest = {
      tenantId: 'bench',
      actor: { id: `agent-${i % 20}`, type: 'agent' },
      targetSystem: 'acme/payments',
      proposedAction: ACTIONS[i % ACTIONS.length] as string,
      args: { branch: `feature/${i}`, files: [{ path: `src/file-${i}.ts` }], dryRun: i % 3 === 0 },
      riskContext: { baseRiskScore: (i * 7) % 50, touchesProduction: i % 5 === 0 },
    };
    const evaluation = evaluateIntent({
      killSwitch: { enabled: false, reason: null },
      actorBlocked: false,
      thresholds: DEFAULT_THRESHOLDS,
      floorEnabled: true,
      policy: starter,
      budgets: NO_BUDGETS,
      evaluatedAt: now,
      request,
      explain: false,
    });
    const createdAt = now - (intents - i) * 10;
    batch.push({
      tenantId: 'bench',
      id: uuidv7({ msecs: createdAt }),
      correlationId: uuidv7(),
      principalId: 'bench-key',
      actorId: request.actor.id,
      targetSystem: request.targetSystem,
      status: evaluation.outcome,
      decision: evaluation.outcome,
      reviewState: 'DECIDED' as const,
      request,
      authorityDecision: {
        decision: evaluation.outcome,
        riskScore: evaluation.riskScore,
        matchedRules: evaluation.matchedRules,
        decidingRule: evaluation.decidingRule,
        gateTrace: evaluation.gateTrace,
      },
      hypotheses: [],
      execution: { attempted: false, status: 'skipped' },
      token: null,
      escalationId: null,
      approval: null,
      createdAt,
      updatedAt: createdAt,
    });
  }
  await storage.writeTransaction((trx) => intentRepository.insert(trx, batch));
}

const app = await buildServer({
  config: loadConfig({}),
  storage,
  clock: systemClock,
  masterKey: randomBytes(32),
  backgroundJobs: false,
});
const headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'bench' };
const draft = {
  rules: [
    {
      id: 'allow-writes-outside-prod',
      effect: 'ALLOW',
      conditions: { all: [{ path: 'risk.production', op: 'EQ', value: false }] },
    },
  ],
  replacePacks: true,
  sample: { limit: intents },
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const health: number[] = [];
for (let i = 0; i < 200; i += 1)
  health.push(await timed(() => app.inject({ method: 'GET', url: '/health' })));
const simulate: number[] = [];
let last:
  | { evaluated: number; changed: number; transitions: Record<string, number>; durationMs: number }
  | undefined;
for (let i = 0; i < runs; i += 1) {
  simulate.push(
    await timed(async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/authority/policy/simulate',
        headers,
        payload: draft,
      });
      if (response.statusCode !== 200) throw new Error(`simulation failed: ${response.body}`);
      last = response.json();
    }),
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(machineLine());
console.log(
  `load: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`GET /health (empty-route ceiling): median ${median(health).toFixed(2)} ms over 200`);
console.log(
  `POST /authority/policy/simulate, ${intents} intents (SQLite): median ${median(simulate).toFixed(0)} ms, max ${Math.max(...simulate).toFixed(0)} ms over ${runs} runs`,
);
console.log(
  `last answer: evaluated ${last?.evaluated}, changed ${last?.changed}, durationMs ${last?.durationMs}, transitions ${JSON.stringify(last?.transitions)}`,
);
await app.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
