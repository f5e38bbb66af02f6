import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { NO_BUDGETS } from '../../src/intent/domain/budgets.js';
import { evaluateIntent } from '../../src/intent/domain/evaluate-intent.js';
import type { IntentRequest } from '../../src/intent/domain/intent-request.js';
import { DEFAULT_THRESHOLDS } from '../../src/intent/domain/thresholds.js';
import { type EvaluatePolicyResult, evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import {
  CANDIDATE_STEPS,
  containsSteps,
  EVALUATION_BUDGET_STEPS,
  EvaluationBudgetExceeded,
  EvaluationMeter,
  MATCH_CALL_STEPS,
  matchSteps,
} from '../../src/policy/evaluation-budget.js';
import { compileGlobSet } from '../../src/policy/glob.js';
import {
  EVALUATION_DFA_MEMORY,
  EvaluationPattern,
  MAX_PATTERN_PROGRAM_SIZE,
} from '../../src/policy/pattern.js';
import { doc, ids, policyOf } from './fixtures.js';

const matches = (id: string, path: string, value: string) => ({
  id,
  effect: 'DENY',
  conditions: { all: [{ path, op: 'MATCHES', value }] },
});

/** A pattern near the saved-size limit: no literal for a prefilter, many live threads per character. */
const COSTLY = `(?:[a-z]{100}){4}[0-9]`;

describe('the evaluation meter', () => {
  test('charges until the limit and refuses the charge that would pass it, charging nothing', () => {
    const meter = new EvaluationMeter(10);
    meter.charge(4);
    meter.charge(6);
    assert.equal(meter.spent, 10);
    assert.throws(() => meter.charge(1), EvaluationBudgetExceeded);
    assert.equal(meter.spent, 10);
    assert.equal(new EvaluationMeter().limit, EVALUATION_BUDGET_STEPS);
  });

  test('a MATCHES test costs program size × (length + 1) plus the call; CONTAINS a step per 4 characters', () => {
    assert.equal(matchSteps(7, 0), 7 + MATCH_CALL_STEPS);
    assert.equal(matchSteps(7, 99), 700 + MATCH_CALL_STEPS);
    assert.deepEqual([0, 1, 4, 5].map(containsSteps), [0, 1, 1, 2]);
  });
});

describe('EvaluationPattern', () => {
  test(`answers exactly as RE2JS.test, with a ${EVALUATION_DFA_MEMORY / 1024} KiB DFA`, () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      'A',
      '.',
      '[ab]',
      '[^a]',
      '\\b',
      '\\s',
      '^',
      '$',
      '(?i)a',
      '\\pL',
      'é',
    );
    const piece = fc
      .tuple(atom, fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '*?'))
      .map(([a, q]) => a + q);
    const pattern = fc
      .array(
        fc.oneof(
          piece,
          piece.map((p) => `(${p})`),
          fc.constant('|'),
        ),
        { minLength: 1, maxLength: 8 },
      )
      .map((parts) => parts.join(''));
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'A', ' ', '\n', 'é', '1'), maxLength: 40 });
    fc.assert(
      fc.property(pattern, text, (source, subject) => {
        let re: RE2JS;
        try {
          re = RE2JS.compile(source);
        } catch {
          return true;
        }
        assert.equal(
          new EvaluationPattern(source).test(subject),
          re.test(subject),
          `${source} on ${JSON.stringify(subject)}`,
        );
        return true;
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('policy evaluation under a budget', () => {
  test('every piece of work is charged: tests by size, candidates, bindings, CONTAINS', () => {
    const size = RE2JS.compile('b+').programSize();
    const policy = policyOf([
      matches('m', 'args.s', 'b+'),
      { id: 'c', effect: 'DENY', conditions: { all: [{ path: 'args', op: 'CONTAINS', value: 'zz' }] } },
      { id: 'g', effect: 'ALLOW', bindings: { actorIds: ['agent-*', 'exact'] } },
    ]);
    const result = evaluatePolicy(policy, doc({ args: { s: 'abc' } }), { at: 0, explain: false });
    assert.deepEqual(ids(result), ['g', 'm']);
    // c: bare args yields "s" and "abc" (2 candidates), CONTAINS reads 1 and 3 characters.
    // g: one exact list, one glob over "agent-7" (7 characters).
    // m: one test over "abc".
    const expected =
      2 * CANDIDATE_STEPS + containsSteps(1) + containsSteps(3) + (1 + (7 + 1)) + matchSteps(size, 3);
    assert.equal(result.steps, expected);
    assert.equal(result.budgetExceeded, undefined);
  });

  test('a test whose worst case passes the budget is not run: evaluation stops and says so', () => {
    const policy = policyOf([matches('costly', 'args.s', COSTLY), matches('cheap', 'args.t', 'x')]);
    const text = 'a'.repeat(60_000);
    const result = evaluatePolicy(policy, doc({ args: { s: text, t: 'x' } }), { at: 0, explain: false });
    assert.deepEqual(result.budgetExceeded, { limit: EVALUATION_BUDGET_STEPS });
    // Rules sort by id: "cheap" ran and matched before "costly" was refused its charge.
    assert.deepEqual(ids(result), ['cheap']);
    assert.equal(result.steps, matchSteps(RE2JS.compile('x').programSize(), 1));
  });

  test('the same text under the budget is evaluated, so the outcome depends on sizes only', () => {
    const policy = policyOf([matches('costly', 'args.s', COSTLY)]);
    const size = RE2JS.compile(COSTLY).programSize();
    assert.ok(size <= MAX_PATTERN_PROGRAM_SIZE);
    const longest = Math.floor((EVALUATION_BUDGET_STEPS - MATCH_CALL_STEPS) / size) - 1;
    const under = evaluatePolicy(policy, doc({ args: { s: 'a'.repeat(longest) } }), {
      at: 0,
      explain: false,
    });
    assert.equal(under.budgetExceeded, undefined);
    assert.equal(under.steps, matchSteps(size, longest));
    const over = evaluatePolicy(policy, doc({ args: { s: 'a'.repeat(longest + 1) } }), {
      at: 0,
      explain: false,
    });
    assert.deepEqual(over.budgetExceeded, { limit: EVALUATION_BUDGET_STEPS });
    assert.equal(over.steps, 0);
  });

  test('many cheap conditions over many candidates run out as well (no regex needed)', () => {
    const rules = Array.from({ length: 200 }, (_, i) => ({
      id: `r${i}`,
      effect: 'DENY',
      conditions: { all: [{ path: 'args', op: 'EQ', value: `never-${i}` }] },
    }));
    const leaves = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
    const result = evaluatePolicy(policyOf(rules), doc({ args: { leaves } }), { at: 0, explain: false });
    assert.deepEqual(result.budgetExceeded, { limit: EVALUATION_BUDGET_STEPS });
  });

  test('long glob lists are charged per entry', () => {
    const actorIds = Array.from({ length: 1_000 }, (_, i) => `*${'?'.repeat(100)}-${i}`);
    const rules = Array.from({ length: 100 }, (_, i) => ({
      id: `g${i}`,
      effect: 'ALLOW',
      bindings: { actorIds },
    }));
    const result = evaluatePolicy(policyOf(rules), doc({ actor: { id: 'a'.repeat(200), type: 'agent' } }), {
      at: 0,
      explain: false,
    });
    assert.deepEqual(result.budgetExceeded, { limit: EVALUATION_BUDGET_STEPS });
  });

  test('a glob with ? is charged by its weight: the code points of its segments holding ?', () => {
    const question = compileGlobSet([`*${'?'.repeat(99)}x*`]);
    assert.equal(question.steps(200), 1 + 100 * 201);
    const plain = compileGlobSet(['agent-*', '*-bot', 'exact']);
    assert.equal(plain.steps(200), 1 + 2 * 201, 'one per character for globs without ?');
    assert.equal(compileGlobSet(['a?c*', 'x?*?y']).steps(9), 1 + (3 + 2 + 2) * 10);
  });

  test('an explanation never changes the decision: its work is charged to a budget of its own', () => {
    const policy = policyOf([{ id: 'allow-all', effect: 'ALLOW' }, matches('m', 'args.s', 'zzz')]);
    const input = doc({ args: { s: 'a'.repeat(1_000) } });
    const plain = evaluatePolicy(policy, input, { at: 0, explain: false });
    // A budget of exactly the decision's work: explaining `m` needs more than that.
    const budgetSteps = plain.steps;
    const decision = (result: EvaluatePolicyResult) => ({
      matched: result.matched,
      steps: result.steps,
      budgetExceeded: result.budgetExceeded,
    });
    const bare = evaluatePolicy(policy, input, { at: 0, explain: false, budgetSteps });
    const explained = evaluatePolicy(policy, input, { at: 0, explain: true, budgetSteps });
    assert.equal(bare.budgetExceeded, undefined);
    assert.deepEqual(decision(explained), decision(bare));
    assert.deepEqual(explained.explanation, [], 'the explanation stopped at its budget, before m');
    const roomy = evaluatePolicy(policy, input, { at: 0, explain: true });
    assert.deepEqual(decision(roomy), decision(plain));
    assert.deepEqual(
      roomy.explanation?.map((entry) => entry.ruleId),
      ['m'],
    );
    const tight = evaluatePolicy(policy, input, { at: 0, explain: false, budgetSteps: plain.steps - 1 });
    assert.deepEqual(tight.budgetExceeded, { limit: plain.steps - 1 });
  });

  test('a decision is the same with and without an explanation, for generated policies and documents', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 4_000 }),
        fc.integer({ min: 1, max: 40_000 }),
        (kinds, length, budgetSteps) => {
          const rules = kinds.map((kind, i) =>
            kind === 0
              ? { id: `allow-${i}`, effect: 'ALLOW' as const }
              : kind === 1
                ? matches(`m-${i}`, 'args.s', 'zz+y')
                : kind === 2
                  ? { ...matches(`t-${i}`, 'args.s', 'a'), bindings: { targetSystems: ['other/repo'] } }
                  : {
                      id: `deny-${i}`,
                      effect: 'DENY' as const,
                      conditions: { all: [{ path: 'args.n', op: 'GT', value: 5 }] },
                    },
          );
          const policy = policyOf(rules);
          const input = doc({ args: { s: 'a'.repeat(length), n: length % 10 } });
          const bare = evaluatePolicy(policy, input, { at: 0, explain: false, budgetSteps });
          const explained = evaluatePolicy(policy, input, { at: 0, explain: true, budgetSteps });
          assert.deepEqual(
            [explained.matched, explained.steps, explained.budgetExceeded],
            [bare.matched, bare.steps, bare.budgetExceeded],
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a decision over its budget', () => {
  const request = (args: Record<string, unknown>, proposedAction = 'list pull requests'): IntentRequest => ({
    tenantId: 'acme',
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction,
    args,
    riskContext: { baseRiskScore: 10 },
  });
  const input = (args: Record<string, unknown>, proposedAction?: string) => ({
    request: request(args, proposedAction),
    killSwitch: { enabled: false, reason: null },
    actorBlocked: false,
    thresholds: DEFAULT_THRESHOLDS,
    floorEnabled: true,
    policy: policyOf([{ id: 'allow-all', effect: 'ALLOW' }, matches('costly', 'args.s', COSTLY)]),
    evaluatedAt: 0,
    budgets: NO_BUDGETS,
    explain: false,
  });

  test('is DENIED by signal:evaluation-budget, whatever matched before', () => {
    const evaluation = evaluateIntent(input({ s: 'a'.repeat(60_000) }));
    const signal = { id: 'signal:evaluation-budget', effect: 'DENY', priority: 0 };
    assert.equal(evaluation.outcome, 'DENIED');
    assert.deepEqual(evaluation.decidingRule, signal);
    assert.deepEqual(evaluation.matchedRules, [signal]);
    assert.deepEqual(evaluation.gateTrace, ['kill_switch', 'rbac', 'structural', 'authority_rules']);
    assert.match(
      evaluation.rationale.at(-1) ?? '',
      new RegExp(`budget of ${EVALUATION_BUDGET_STEPS} steps: DENY`),
    );
  });

  test('keeps the floor, which is evaluated whole before the rules', () => {
    const evaluation = evaluateIntent(input({ s: 'a'.repeat(60_000) }, 'drop table users'));
    assert.deepEqual(
      evaluation.matchedRules.map((r) => r.id),
      ['catastrophic-floor', 'signal:evaluation-budget'],
    );
    assert.equal(evaluation.decidingRule.id, 'signal:evaluation-budget');
    assert.equal(evaluation.queue, 'standard');
  });

  test('a request within the budget is decided by the rules', () => {
    const evaluation = evaluateIntent(input({ s: 'a'.repeat(1_000) }));
    assert.equal(evaluation.outcome, 'APPROVED');
    assert.ok(evaluation.evaluationSteps > 0);
  });
});
