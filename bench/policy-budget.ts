// The cost of regular expressions in policies (issue 11, item 1): how long a decision takes under
// the worst patterns the validator still accepts, against args up to 64 KiB, and whether other
// requests keep flowing meanwhile.
// Run: npx tsx --conditions=development bench/policy-budget.ts [--seconds 2] [--duration 5]
//
// In process, each scenario runs the decision function `POST /intent` uses (evaluateIntent) on a
// compiled policy, with a fresh text each time so no DFA state carries over, and reports the
// decision, the budget steps spent, the latency (median, p99, max) and the nanoseconds per step at
// the slowest run (the constant the budget in evaluation-budget.ts is calibrated against).
// Over HTTP (embedded server), the worst accepted policy is installed and `POST /intent` with
// 64 KiB of args runs on 4 connections while `GET /health` is measured on another one; an empty
// Fastify route gives the machine's ceiling in the same run.

import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { NO_BUDGETS } from '../packages/server/src/intent/domain/budgets.js';
import { evaluateIntent } from '../packages/server/src/intent/domain/evaluate-intent.js';
import type { IntentEvaluationInput } from '../packages/server/src/intent/domain/gates.js';
import type { IntentRequest } from '../packages/server/src/intent/domain/intent-request.js';
import { DEFAULT_THRESHOLDS } from '../packages/server/src/intent/domain/thresholds.js';
import { compilePolicy } from '../packages/server/src/policy/compile-policy.js';
import { EVALUATION_BUDGET_STEPS } from '../packages/server/src/policy/evaluation-budget.js';
import { POLICY_PACKS } from '../packages/server/src/policy/packs.js';
import { validatePolicy } from '../packages/server/src/policy/validate-policy.js';
import { startEmbeddedServer } from './embedded-server.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '2' }, duration: { type: 'string', default: '5' } },
});
const seconds = Number(values.seconds);
const duration = Number(values.duration);

/** The largest args the service accepts: 64 KiB of JSON. */
const ARGS_BYTES = 64 * 1024;

let seed = 11;
function random(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const textOf = (alphabet: string, length: number) =>
  Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');

function rulesOf(rules: unknown[]) {
  const checked = validatePolicy({ rules });
  if (!checked.ok) throw new Error(checked.issues.map((i) => i.message).join('; '));
  return checked.rules;
}

const matchesRule = (id: string, path: string, pattern: string) => ({
  id,
  effect: 'DENY',
  conditions: { all: [{ path, op: 'MATCHES', value: pattern }] },
});

/** The worst accepted patterns found: no literal to prefilter on, hundreds of live NFA threads. */
const WORST = '(?:\\pL{99}){5}[0-9]';
const DFA_BLOWUP = '(?:[ab]*a[ab]{99}){4}[0-9]';

interface Scenario {
  name: string;
  rules: unknown[];
  args: () => Record<string, unknown>;
  actorId?: string;
}

const longLetters = () => ({ s: textOf('abcdefghijklmnopqrstuvwxyzé', ARGS_BYTES - 16) });
const scenarios: Scenario[] = [
  { name: `worst pattern ${WORST} vs 64 KiB`, rules: [matchesRule('w', 'args.s', WORST)], args: longLetters },
  {
    name: 'worst pattern, longest text within budget',
    rules: [matchesRule('w', 'args.s', WORST)],
    args: () => ({ s: textOf('abcdefghijklmnopqrstuvwxyzé', Math.floor(EVALUATION_BUDGET_STEPS / 498) - 2) }),
  },
  {
    name: `DFA blow-up ${DFA_BLOWUP}, longest text within budget`,
    rules: [matchesRule('d', 'args.s', DFA_BLOWUP)],
    args: () => ({ s: textOf('ab', Math.floor(EVALUATION_BUDGET_STEPS / 411) - 2) }),
  },
  {
    // Its secret pattern (195 instructions) has 14 required literals: a fold and 14 searches.
    name: 'sensitive-data-guard pack vs 64 KiB of text (no literal)',
    rules: [...(POLICY_PACKS.find((pack) => pack.id === 'sensitive-data-guard')?.rules ?? [])],
    args: longLetters,
  },
  {
    name: '50 bare-args MATCHES vs 64 KiB of short leaves',
    rules: Array.from({ length: 50 }, (_, i) => matchesRule(`b${i}`, 'args', `(?i)\\bneedle${i}\\b`)),
    args: () => ({ leaves: Array.from({ length: 9_000 }, () => textOf('abcdefgh', 4)) }),
  },
  {
    name: '2,000 rules, bare-args EQ vs 64 KiB of short leaves',
    rules: Array.from({ length: 2_000 }, (_, i) => ({
      id: `e${i}`,
      effect: 'DENY',
      conditions: { all: [{ path: 'args', op: 'EQ', value: `never-${i}` }] },
    })),
    args: () => ({ leaves: Array.from({ length: 9_000 }, () => textOf('abcdefgh', 4)) }),
  },
  {
    name: '100 rules × 1,000 glob entries on a 200-character actor',
    rules: Array.from({ length: 100 }, (_, i) => ({
      id: `g${i}`,
      effect: 'ALLOW',
      bindings: { actorIds: Array.from({ length: 1_000 }, (_, j) => `*${'?'.repeat(100)}-${j}`) },
    })),
    args: () => ({}),
    actorId: 'a'.repeat(200),
  },
];

function inputFor(scenario: Scenario, policy: ReturnType<typeof compilePolicy>): IntentEvaluationInput {
  const request: IntentRequest = {
    tenantId: 'bench',
    actor: { id: scenario.actorId ?? 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction: 'list pull requests',
    args: scenario.args(),
    riskContext: { baseRiskScore: 10 },
  };
  return {
    request,
    killSwitch: { enabled: false, reason: null },
    actorBlocked: false,
    thresholds: DEFAULT_THRESHOLDS,
    floorEnabled: true,
    policy,
    evaluatedAt: Date.now(),
    budgets: NO_BUDGETS,
    explain: false,
  };
}

console.log(`machine: ${machineLine()}`);
console.log(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (1, 5, 15 min)`,
);
console.log(`budget: ${EVALUATION_BUDGET_STEPS} steps per evaluation\n`);
console.log('in process (evaluateIntent; fresh input each run):');
for (const scenario of scenarios) {
  const policy = compilePolicy(rulesOf(scenario.rules));
  const times: number[] = [];
  let outcome = '';
  let steps = 0;
  let worstNsPerStep = 0;
  const end = performance.now() + seconds * 1000;
  while (times.length < 5 || (performance.now() < end && times.length < 500)) {
    const input = inputFor(scenario, policy);
    const t0 = performance.now();
    const evaluation = evaluateIntent(input);
    const ms = performance.now() - t0;
    times.push(ms);
    outcome = `${evaluation.outcome} (${evaluation.decidingRule.id})`;
    steps = evaluation.evaluationSteps;
    if (steps > 0) worstNsPerStep = Math.max(worstNsPerStep, (ms * 1e6) / steps);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
  console.log(
    `  ${scenario.name.padEnd(62)} ${outcome.padEnd(38)} steps ${String(steps).padStart(7)}  ` +
      `median ${at(0.5).toFixed(2)} ms  p99 ${at(0.99).toFixed(2)} ms  max ${(times.at(-1) ?? 0).toFixed(2)} ms  ` +
      `${worstNsPerStep.toFixed(1)} ns/step at worst  (n=${times.length})`,
  );
}

// ---------------------------------------------------------------- over HTTP

async function run(url: string, options: Partial<autocannon.Options>) {
  return autocannon({ url, duration, ...options });
}
const line = (title: string, result: autocannon.Result) =>
  `  ${title.padEnd(62)} ${Math.round(result.requests.average).toString().padStart(6)} req/s  ` +
  `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms  ` +
  `non-2xx/errors ${result.errors + result.timeouts + (result.non2xx ?? 0)}`;

console.log(`\nover HTTP (${duration} s per run, load generators in this process):`);
const empty = Fastify();
empty.get('/', async () => ({ ok: true }));
await empty.listen({ port: 0, host: '127.0.0.1' });
const emptyAddress = empty.server.address();
const emptyPort = typeof emptyAddress === 'object' && emptyAddress ? emptyAddress.port : 0;
console.log(
  line(
    'empty Fastify route, 16 connections (ceiling)',
    await run(`http://127.0.0.1:${emptyPort}/`, { connections: 16 }),
  ),
);
await empty.close();

const server = await startEmbeddedServer();
const headers = { ...server.headers, 'content-type': 'application/json' };
const saved = await server.app.inject({
  method: 'POST',
  url: '/authority/policy',
  headers,
  payload: {
    rules: [{ id: 'allow-all', effect: 'ALLOW' }, matchesRule('worst', 'args.s', WORST)],
    activate: true,
  },
});
if (saved.statusCode !== 201) throw new Error(`policy refused: ${saved.body}`);
const intentBody = (s: string) =>
  JSON.stringify({
    tenantId: 'bench',
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction: 'list pull requests',
    args: { s },
    riskContext: { baseRiskScore: 10 },
  });
const bodies = {
  '64 KiB args (over budget: DENIED)': intentBody(textOf('abcdefghijklmnopqrstuvwxyz', ARGS_BYTES - 16)),
  'longest args within budget (evaluated: APPROVED)': intentBody(
    textOf('abcdefghijklmnopqrstuvwxyz', Math.floor(EVALUATION_BUDGET_STEPS / 498) - 2),
  ),
};
for (const [title, body] of Object.entries(bodies)) {
  const probe = await server.app.inject({ method: 'POST', url: '/intent', headers, payload: body });
  const decision = probe.json().authorityDecision;
  const single = await run(`${server.base}/intent`, { connections: 1, method: 'POST', headers, body });
  console.log(
    line(`POST /intent, ${title}, 1 connection [${decision.decision} ${decision.decidingRule.id}]`, single),
  );
  const [loaded, health] = await Promise.all([
    run(`${server.base}/intent`, { connections: 4, method: 'POST', headers, body }),
    run(`${server.base}/health`, { connections: 1 }),
  ]);
  console.log(line(`POST /intent, ${title}, 4 connections`, loaded));
  console.log(line('  GET /health meanwhile, 1 connection', health));
}
await server.close();
console.log(
  `\nload average at end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
