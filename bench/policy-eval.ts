// In-process policy evaluation latency (median and p99 per evaluation) for 10, 100 and 1,000 rules,
// beside @cedar-policy/cedar-wasm evaluating an equivalent policy set in the same run, plus MATCHES
// patterns, the catastrophic floor and the `(a+)+$` case on 100,000 characters.
// Run: npx tsx --conditions=development bench/policy-eval.ts [--seconds 1]
//
// The Cedar comparison uses only conditions both engines express (contract §12): equality, set
// membership, `*` globs via Cedar `like`, numeric comparisons. Only ALLOW (permit) and DENY (forbid)
// rules are used, since Cedar has no ESCALATE / REQUIRE_APPROVAL. Before timing, both engines are
// checked to reach the same decision and the same determining rules on every benchmark document.
// Cedar runs with its policy set preparsed (preparsePolicySet + statefulIsAuthorized), the fair
// counterpart of our compile-once policy; each call still crosses the JS/wasm boundary with its
// request serialized, which is part of what a service embedding cedar-wasm would pay.
import { parseArgs } from 'node:util';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { matchFloor } from '../packages/server/src/policy/catastrophic-floor.js';
import { type CompiledPolicy, compilePolicy } from '../packages/server/src/policy/compile-policy.js';
import { evaluatePolicy } from '../packages/server/src/policy/evaluate-policy.js';
import { decide } from '../packages/server/src/policy/most-severe-wins.js';
import type { EvaluationDocument, Rule } from '../packages/server/src/policy/rule.js';
import { validatePolicy } from '../packages/server/src/policy/validate-policy.js';
import { machineLine } from './machine.js';
import { formatMicros, measure, type Stats } from './micro-timer.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const seconds = Number(values.seconds);

// ---------------------------------------------------------------- measurement

const timed = (work: (i: number) => unknown, budgetSeconds = seconds, maxSamples = 200_000): Stats =>
  measure(work, budgetSeconds, maxSamples);
const us = (value: number) => formatMicros(value, 1);
const cell = (s: Stats) => `median ${us(s.median)}  p99 ${us(s.p99)}`;

// ---------------------------------------------------------------- equivalent policy sets

const ACTOR_TYPES = ['service', 'agent', 'human', 'workflow'] as const;
const OI_CODES = ['OI-101', 'OI-102', 'OI-104', 'OI-105', 'OI-305'];

/** Rule i in our format and in Cedar, built from the same parameters. */
function ruleAt(i: number): { rule: Rule; cedar: string } {
  const deny = i % 7 === 3;
  const types = [ACTOR_TYPES[i % 4], ACTOR_TYPES[(i + 1) % 4]] as string[];
  const org = `org${i % 20}`;
  const op = i % 2 === 0 ? 'read' : 'write';
  const codes = [OI_CODES[i % 5], OI_CODES[(i + 2) % 5]] as string[];
  const below = 20 + (i % 80);
  const actorGlob = i % 3 === 0 ? 'agent-*' : '*';
  const rule: Rule = {
    id: `r${i}`,
    effect: deny ? 'DENY' : 'ALLOW',
    priority: 2 + (i % 50),
    bindings: { actorIds: [actorGlob], actorTypes: types, targetSystems: [`${org}/*`] },
    conditions: {
      all: [
        { path: 'risk.operation_type', op: 'EQ', value: op },
        { path: 'intent.oiCode', op: 'IN', value: codes },
        { path: 'risk.score', op: deny ? 'GTE' : 'LT', value: below },
        { path: 'risk.production', op: 'EQ', value: false },
      ],
    },
  };
  const q = JSON.stringify;
  const text = `${deny ? 'forbid' : 'permit'} (principal, action, resource) when {
  context.actorId like ${q(actorGlob)} &&
  ${q(types)}.contains(context.actorType) &&
  context.targetSystem like ${q(`${org}/*`)} &&
  context.operationType == ${q(op)} &&
  ${q(codes)}.contains(context.oiCode) &&
  context.score ${deny ? '>=' : '<'} ${below} &&
  context.production == false
};`;
  return { rule, cedar: text };
}

function docAt(i: number): EvaluationDocument {
  // A small LCG so documents are varied but identical from run to run.
  let seed = (i * 2654435761) >>> 0;
  const next = (n: number) => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed % n;
  };
  return {
    actor: {
      id: next(2) === 0 ? `agent-${next(100)}` : `svc-${next(100)}`,
      type: ACTOR_TYPES[next(4)] as string,
    },
    targetSystem: `org${next(20)}/repo${next(5)}`,
    proposedAction: 'merge pull request 42',
    args: { pullRequest: 42, files: ['src/a.ts', 'src/b.ts'], message: 'fix: handle empty input' },
    intent: { oiCode: OI_CODES[next(5)] as string, confidence: 0.9 },
    risk: {
      score: next(100),
      operation_type: next(2) === 0 ? 'read' : 'write',
      privileged: false,
      production: next(4) === 0,
      sensitive: false,
      policyCompliant: true,
    },
    github: null,
    thresholds: { escalateAt: 60, denyAt: 90, lowConfidenceEscalateBelow: 0.5 },
  };
}

function cedarRequest(d: EvaluationDocument, policySetId: string): cedar.StatefulAuthorizationCall {
  return {
    principal: { type: 'Actor', id: d.actor.id },
    action: { type: 'Action', id: 'intent' },
    resource: { type: 'System', id: d.targetSystem },
    context: {
      actorId: d.actor.id,
      actorType: d.actor.type,
      targetSystem: d.targetSystem,
      operationType: d.risk.operation_type,
      oiCode: d.intent.oiCode,
      score: d.risk.score,
      production: d.risk.production,
    },
    preparsedPolicySetId: policySetId,
    entities: [],
  };
}

/** Our decision restricted to what Cedar expresses: allow/deny and the determining rules. */
function ours(
  policy: CompiledPolicy,
  d: EvaluationDocument,
): { decision: 'allow' | 'deny'; reason: string[] } {
  const { matched } = evaluatePolicy(policy, d, { at: 0, explain: false });
  if (matched.length === 0) return { decision: 'deny', reason: [] };
  const { effect } = decide(matched);
  const winners = matched.filter((m) => m.effect === effect).map((m) => m.id);
  return effect === 'ALLOW' ? { decision: 'allow', reason: winners } : { decision: 'deny', reason: winners };
}

function cedarDecision(
  d: EvaluationDocument,
  policySetId: string,
): { decision: 'allow' | 'deny'; reason: string[] } {
  const answer = cedar.statefulIsAuthorized(cedarRequest(d, policySetId));
  if (answer.type !== 'success') throw new Error(`cedar: ${answer.errors.map((e) => e.message).join('; ')}`);
  if (answer.response.diagnostics.errors.length > 0) {
    throw new Error(`cedar evaluation errors: ${JSON.stringify(answer.response.diagnostics.errors)}`);
  }
  return { decision: answer.response.decision, reason: [...answer.response.diagnostics.reason] };
}

// ---------------------------------------------------------------- run

console.log(`machine: ${machineLine()}`);
console.log(`cedar-wasm ${cedar.getCedarVersion()}; ${seconds} s per measurement; latency of one evaluation`);

const DOCS = Array.from({ length: 1024 }, (_, i) => docAt(i));

for (const size of [10, 100, 1_000]) {
  const built = Array.from({ length: size }, (_, i) => ruleAt(i));
  const validated = validatePolicy({ rules: built.map((b) => b.rule) });
  if (!validated.ok) throw new Error(`bench policy refused: ${validated.issues[0]?.message}`);
  const compileStart = process.hrtime.bigint();
  const policy = compilePolicy(validated.rules);
  const compileMs = Number(process.hrtime.bigint() - compileStart) / 1e6;

  const policySetId = `bench-${size}`;
  const staticPolicies: Record<string, string> = {};
  built.forEach((b, i) => {
    staticPolicies[`r${i}`] = b.cedar;
  });
  const parseStart = process.hrtime.bigint();
  const parsed = cedar.preparsePolicySet(policySetId, { staticPolicies });
  const parseMs = Number(process.hrtime.bigint() - parseStart) / 1e6;
  if (parsed.type !== 'success')
    throw new Error(`cedar parse: ${parsed.errors.map((e) => e.message).join('; ')}`);

  // Same decisions and determining rules on every document before any timing.
  let allow = 0;
  for (const d of DOCS) {
    const a = ours(policy, d);
    const b = cedarDecision(d, policySetId);
    const sameReason = JSON.stringify([...a.reason].sort()) === JSON.stringify([...b.reason].sort());
    if (a.decision !== b.decision || !sameReason) {
      throw new Error(
        `engines disagree on ${JSON.stringify(d)}: ours ${JSON.stringify(a)}, cedar ${JSON.stringify(b)}`,
      );
    }
    if (a.decision === 'allow') allow += 1;
  }

  const oursStats = timed((i) => {
    const { matched } = evaluatePolicy(policy, DOCS[i & 1023] as EvaluationDocument, {
      at: 0,
      explain: false,
    });
    if (matched.length > 0) decide(matched);
  });
  const explainStats = timed((i) =>
    evaluatePolicy(policy, DOCS[i & 1023] as EvaluationDocument, { at: 0, explain: true }),
  );
  const cedarStats = timed((i) =>
    cedar.statefulIsAuthorized(cedarRequest(DOCS[i & 1023] as EvaluationDocument, policySetId)),
  );

  console.log(
    `${String(size).padStart(5)} rules  ours ${cell(oursStats)}   ours+explain ${cell(explainStats)}   cedar-wasm ${cell(cedarStats)}`,
  );
  console.log(
    `             agree on ${DOCS.length}/${DOCS.length} documents (${allow} allow); compile ${compileMs.toFixed(1)} ms, cedar preparse ${parseMs.toFixed(1)} ms`,
  );
}

// MATCHES: 10 rules with field MATCHES and 10 with bare-args MATCHES on a ~1 KiB args document.
{
  const patterns = [
    '(?i)drop\\s+table',
    '\\bsecret[_-]?key\\b',
    '^refs/heads/release-\\d+$',
    'https?://[^/]+/admin',
    '(?i)password\\s*=',
  ];
  const rules: Rule[] = [];
  for (let i = 0; i < 10; i += 1) {
    rules.push({
      id: `field-${i}`,
      effect: 'DENY',
      conditions: { all: [{ path: 'args.steps[*].run', op: 'MATCHES', value: `${patterns[i % 5]}|x${i}y` }] },
    });
    rules.push({
      id: `bare-${i}`,
      effect: 'ESCALATE',
      conditions: { all: [{ path: 'args', op: 'MATCHES', value: `${patterns[(i + 2) % 5]}|z${i}w` }] },
    });
  }
  const validated = validatePolicy({ rules });
  if (!validated.ok) throw new Error(validated.issues[0]?.message);
  const policy = compilePolicy(validated.rules);
  const d = docAt(0);
  d.args = {
    ref: 'refs/heads/main',
    steps: Array.from({ length: 12 }, (_, i) => ({
      name: `step ${i}`,
      run: `npm run build --workspace pkg-${i} && echo done`,
    })),
    env: { NODE_ENV: 'production', REGION: 'eu-west-1' },
  };
  const stats = timed(() => evaluatePolicy(policy, d, { at: 0, explain: false }));
  console.log(
    `MATCHES  20 rules (10 on args.steps[*].run, 10 bare args), ~${JSON.stringify(d.args).length} B args: ${cell(stats)}`,
  );
  const floor = timed(() => matchFloor(d.proposedAction, d.args));
  console.log(`floor    matchFloor on the same document (no hit, full scan): ${cell(floor)}`);
  const bigArgs = { blob: 'lorem ipsum dolor sit amet '.repeat(2400) };
  const bigFloor = timed(() => matchFloor('merge pull request 42', bigArgs), seconds, 2_000);
  console.log(
    `floor    matchFloor on a ${JSON.stringify(bigArgs).length} B args string (no hit): ${cell(bigFloor)}`,
  );
}

// (a+)+$ against 100,000 'a' followed by '!': exponential for a backtracking engine, linear under RE2.
{
  const validated = validatePolicy({
    rules: [
      {
        id: 'redos',
        effect: 'DENY',
        conditions: { all: [{ path: 'args', op: 'MATCHES', value: '(a+)+$' }] },
      },
    ],
  });
  if (!validated.ok) throw new Error(validated.issues[0]?.message);
  const policy = compilePolicy(validated.rules);
  const d = docAt(0);
  d.args = { s: `${'a'.repeat(100_000)}!` };
  if (evaluatePolicy(policy, d, { at: 0, explain: false }).matched.length !== 0)
    throw new Error('unexpected match');
  const stats = timed(() => evaluatePolicy(policy, d, { at: 0, explain: false }), seconds, 200);
  console.log(
    `(a+)+$   bare-args MATCHES on 100,000 'a' + '!' (no match): ${cell(stats)} over ${stats.n} runs`,
  );
}
