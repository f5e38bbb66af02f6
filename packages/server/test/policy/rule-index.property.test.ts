/**
 * The rule index (src/policy/rule-index.ts) only skips rules that cannot match. Checked three ways
 * on generated policies large enough to fill its buckets:
 * - the candidates it selects hold every rule the full scan matches, in policy order;
 * - evaluation without explanation (indexed) matches exactly the rules the full scan does (the
 *   explaining evaluation visits every rule);
 * - on the part of the language Cedar expresses, the indexed decision and its determining rules
 *   are Cedar's (@cedar-policy/cedar-wasm, as bench/policy-eval.ts compares them).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import fc from 'fast-check';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import { decide } from '../../src/policy/most-severe-wins.js';
import type { EvaluationDocument, Rule } from '../../src/policy/rule.js';
import { MIN_INDEXED_RULES } from '../../src/policy/rule-index.js';
import { validatePolicy } from '../../src/policy/validate-policy.js';
import { ACTOR_TYPE_VALUES, docArb, ruleArb } from './arbitraries.js';

function compiled(rules: Rule[]) {
  const validated = validatePolicy({ rules });
  if (!validated.ok) assert.fail(`generated policy refused: ${validated.issues[0]?.message}`);
  return compilePolicy(validated.rules);
}

const manyRulesArb = fc
  .uniqueArray(fc.stringMatching(/^[a-z0-9]{1,4}$/), { minLength: MIN_INDEXED_RULES, maxLength: 120 })
  .chain((ids) => fc.tuple(...ids.map((id) => ruleArb(fc.constant(id)))));

describe('rule index', () => {
  test('selects every rule the full scan matches, in policy order, and evaluation agrees', () => {
    let matchedTotal = 0;
    let skipped = 0;
    fc.assert(
      fc.property(manyRulesArb, fc.array(docArb, { minLength: 1, maxLength: 8 }), (rules, docs) => {
        const policy = compiled(rules);
        const order = new Map(policy.rules.map((rule, position) => [rule, position]));
        for (const doc of docs) {
          const scan = evaluatePolicy(policy, doc, { at: 0, explain: true });
          const indexed = evaluatePolicy(policy, doc, { at: 0, explain: false });
          assert.deepEqual(indexed.matched, scan.matched);
          const candidates = policy.index.candidates(doc);
          const positions = candidates.map((rule) => order.get(rule) ?? -1);
          assert.ok(
            positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] as number))),
            'candidates are rules of the policy, in policy order, each once',
          );
          const ids = new Set(candidates.map((rule) => rule.id));
          for (const rule of scan.matched)
            assert.ok(ids.has(rule.id), `matched rule ${rule.id} not a candidate`);
          matchedTotal += scan.matched.length;
          skipped += policy.rules.length - candidates.length;
        }
      }),
      { numRuns: 400 },
    );
    // The generators must make both outcomes frequent, or the property says little.
    assert.ok(matchedTotal > 1_000, `only ${matchedTotal} matches`);
    assert.ok(skipped > 10_000, `the index skipped only ${skipped} rules`);
  });
});

// ---------------------------------------------------------------- against Cedar

const ACTOR_GLOBS = ['agent-*', '*', 'svc-1', 'agent-1'];
const SYSTEM_GLOBS = ['org1/*', 'org2/*', '*', 'org1/repo1', 'org*/repo2'];
const CODES = ['OI-101', 'OI-102', 'OI-104', 'OI-305'];

interface CedarRule {
  rule: Rule;
  text: string;
}

const cedarRuleArb = (id: string): fc.Arbitrary<CedarRule> =>
  fc
    .record({
      // Forbid overrides permit: one rule in six denies, so that allows stay frequent.
      deny: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
      actorGlob: fc.constantFrom(...ACTOR_GLOBS),
      types: fc.subarray(ACTOR_TYPE_VALUES, { minLength: 2, maxLength: 3 }),
      system: fc.constantFrom(...SYSTEM_GLOBS),
      op: fc.constantFrom('read', 'write'),
      codes: fc.subarray(CODES, { minLength: 2, maxLength: 3 }),
      bound: fc.integer({ min: 30, max: 100 }),
      production: fc.constantFrom(false, false, true),
      priority: fc.integer({ min: 2, max: 60 }),
    })
    .map((p) => {
      const rule: Rule = {
        id,
        effect: p.deny ? 'DENY' : 'ALLOW',
        priority: p.priority,
        bindings: { actorIds: [p.actorGlob], actorTypes: p.types, targetSystems: [p.system] },
        conditions: {
          all: [
            { path: 'risk.operation_type', op: 'EQ', value: p.op },
            { path: 'intent.oiCode', op: 'IN', value: p.codes },
            { path: 'risk.score', op: p.deny ? 'GTE' : 'LT', value: p.bound },
            { path: 'risk.production', op: 'EQ', value: p.production },
          ],
        },
      };
      const q = JSON.stringify;
      const text = `${p.deny ? 'forbid' : 'permit'} (principal, action, resource) when {
  context.actorId like ${q(p.actorGlob)} && ${q(p.types)}.contains(context.actorType) &&
  context.targetSystem like ${q(p.system)} && context.operationType == ${q(p.op)} &&
  ${q(p.codes)}.contains(context.oiCode) && context.score ${p.deny ? '>=' : '<'} ${p.bound} &&
  context.production == ${p.production}
};`;
      return { rule, text };
    });

const cedarPolicyArb = fc
  .uniqueArray(fc.stringMatching(/^r[0-9]{1,4}$/), { minLength: MIN_INDEXED_RULES, maxLength: 80 })
  .chain((ids) => fc.tuple(...ids.map(cedarRuleArb)));

const cedarDocArb: fc.Arbitrary<EvaluationDocument> = fc
  .record({
    actorId: fc.constantFrom('agent-1', 'agent-2', 'svc-1', 'svc-2'),
    actorType: fc.constantFrom(...ACTOR_TYPE_VALUES),
    system: fc.constantFrom('org1/repo1', 'org1/repo2', 'org2/repo2', 'org3/x'),
    code: fc.constantFrom(...CODES),
    score: fc.integer({ min: 0, max: 100 }),
    op: fc.constantFrom('read' as const, 'write' as const),
    production: fc.boolean(),
  })
  .map((d) => ({
    actor: { id: d.actorId, type: d.actorType },
    targetSystem: d.system,
    proposedAction: 'merge pull request 42',
    args: { pullRequest: 42 },
    intent: { oiCode: d.code, confidence: 0.9 },
    risk: {
      score: d.score,
      operation_type: d.op,
      privileged: false,
      production: d.production,
      sensitive: false,
      policyCompliant: true,
    },
    github: null,
    thresholds: { escalateAt: 60, denyAt: 90, lowConfidenceEscalateBelow: 0.5 },
  }));

function cedarAnswer(d: EvaluationDocument, policies: Record<string, string>) {
  const answer = cedar.isAuthorized({
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
    policies: { staticPolicies: policies },
    entities: [],
  });
  if (answer.type !== 'success') assert.fail(`cedar: ${answer.errors.map((e) => e.message).join('; ')}`);
  assert.deepEqual(answer.response.diagnostics.errors, []);
  return { decision: answer.response.decision, reason: [...answer.response.diagnostics.reason].sort() };
}

describe('rule index against cedar-wasm', () => {
  test('the indexed decision and its determining rules are Cedar’s', () => {
    let allows = 0;
    let denies = 0;
    fc.assert(
      fc.property(cedarPolicyArb, fc.array(cedarDocArb, { minLength: 1, maxLength: 6 }), (built, docs) => {
        const policy = compiled(built.map((b) => b.rule));
        const texts = Object.fromEntries(built.map((b) => [b.rule.id, b.text]));
        for (const doc of docs) {
          const { matched } = evaluatePolicy(policy, doc, { at: 0, explain: false });
          const effect = matched.length === 0 ? 'DENY' : decide(matched).effect;
          const ours = {
            decision: effect === 'ALLOW' ? 'allow' : 'deny',
            reason: matched
              .filter((m) => m.effect === effect)
              .map((m) => m.id)
              .sort(),
          };
          assert.deepEqual(ours, cedarAnswer(doc, texts));
          if (ours.decision === 'allow') allows += 1;
          else denies += 1;
        }
      }),
      { numRuns: 100 },
    );
    assert.ok(allows > 40 && denies > 40, `${allows} allow, ${denies} deny`);
  });
});
