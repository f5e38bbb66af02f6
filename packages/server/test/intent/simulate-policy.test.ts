import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NO_BUDGETS } from '../../src/intent/domain/budgets.js';
import { evaluateIntent } from '../../src/intent/domain/evaluate-intent.js';
import type { IntentRequest } from '../../src/intent/domain/intent-request.js';
import {
  describeTransitions,
  EMPTY_SIMULATION,
  MAX_SIMULATION_CHANGES,
  mergeSimulations,
  type SimulationContext,
  type SimulationSample,
  simulatePolicy,
} from '../../src/intent/domain/simulate-policy.js';
import { DEFAULT_THRESHOLDS } from '../../src/intent/domain/thresholds.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { starterRules } from '../../src/policy/packs.js';
import type { Rule } from '../../src/policy/rule.js';

function request(proposedAction: string, actorId = 'agent-7', baseRiskScore = 10): IntentRequest {
  return {
    tenantId: 'acme',
    actor: { id: actorId, type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction,
    riskContext: { baseRiskScore },
  };
}

function context(rules: Rule[], blocked: string[] = []): SimulationContext {
  return {
    thresholds: DEFAULT_THRESHOLDS,
    floorEnabled: true,
    policy: compilePolicy(rules),
    blockedActors: new Set(blocked),
    budgetsByActor: new Map(),
    evaluatedAt: 0,
  };
}

/** Samples as the starter policy decided them. */
function decidedByStarter(requests: IntentRequest[]): SimulationSample[] {
  const policy = compilePolicy(starterRules());
  return requests.map((req, index) => {
    const evaluation = evaluateIntent({
      killSwitch: { enabled: false, reason: null },
      actorBlocked: false,
      thresholds: DEFAULT_THRESHOLDS,
      floorEnabled: true,
      policy,
      budgets: NO_BUDGETS,
      evaluatedAt: 0,
      request: req,
      explain: false,
    });
    return {
      intentId: `i-${index}`,
      createdAtMs: 1_000 - index,
      request: req,
      before: { decision: evaluation.outcome, decidingRule: evaluation.decidingRule },
    };
  });
}

const ACTIONS = ['list open pull requests', 'merge pull request 7', 'rm -rf /srv', 'push the release branch'];

describe('simulatePolicy', () => {
  it('is the identity on the policy that made the decisions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...ACTIONS), fc.integer({ min: 0, max: 100 })), { maxLength: 30 }),
        (specs) => {
          const samples = decidedByStarter(specs.map(([action, score]) => request(action, 'a', score)));
          const result = simulatePolicy(samples, context(starterRules()));
          assert.deepEqual([result.evaluated, result.changed, result.transitions], [samples.length, 0, {}]);
        },
      ),
    );
  });

  it('counts transitions as changed pairs only, and changed equals their sum', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...ACTIONS), fc.integer({ min: 0, max: 100 })), { maxLength: 40 }),
        fc.constantFrom<Rule[]>(
          [],
          [{ id: 'allow-all', effect: 'ALLOW' }],
          [{ id: 'deny-all', effect: 'DENY' }],
        ),
        (specs, rules) => {
          const samples = decidedByStarter(specs.map(([action, score]) => request(action, 'a', score)));
          const result = simulatePolicy(samples, context(rules));
          const sum = Object.values(result.transitions).reduce((a, b) => a + b, 0);
          assert.equal(sum, result.changed);
          for (const key of Object.keys(result.transitions)) {
            const [from, to] = key.split('->');
            assert.notEqual(from, to);
          }
          assert.equal(result.changes.length, Math.min(result.changed, MAX_SIMULATION_CHANGES));
          for (const change of result.changes) assert.notEqual(change.before.decision, change.after.decision);
        },
      ),
    );
  });

  it('turns escalated writes into approvals under an allow-all draft; the floor still escalates', () => {
    const samples = decidedByStarter([
      request('merge pull request 1'),
      request('rm -rf /srv'),
      request('list open pull requests'),
    ]);
    const result = simulatePolicy(samples, context([{ id: 'allow-all', effect: 'ALLOW' }]));
    assert.deepEqual(result.transitions, { 'ESCALATED->APPROVED': 1 });
    assert.equal(result.changes[0]?.intentId, 'i-0');
    assert.equal(result.changes[0]?.after.decidingRule.id, 'allow-all');
  });

  it("denies a blocked actor's intents, and ignores the kill switch", () => {
    const samples = decidedByStarter([request('list open pull requests', 'runaway')]);
    const result = simulatePolicy(samples, context(starterRules(), ['runaway']));
    assert.deepEqual(result.transitions, { 'APPROVED->DENIED': 1 });
    assert.equal(result.changes[0]?.after.decidingRule.id, 'signal:actor-blocked');
  });

  it('gives the same result replayed in pages and merged as replayed at once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...ACTIONS), fc.integer({ min: 0, max: 100 })), { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom<Rule[]>([{ id: 'allow-all', effect: 'ALLOW' }], [{ id: 'deny-all', effect: 'DENY' }]),
        (specs, pageSizes, rules) => {
          const samples = decidedByStarter(specs.map(([action, score]) => request(action, 'a', score)));
          const whole = simulatePolicy(samples, context(rules));
          let merged = EMPTY_SIMULATION;
          for (let from = 0, page = 0; from < samples.length; page += 1) {
            const size = pageSizes[page % pageSizes.length] ?? 1;
            merged = mergeSimulations(
              merged,
              simulatePolicy(samples.slice(from, from + size), context(rules)),
            );
            from += size;
          }
          assert.deepEqual(merged, whole);
        },
      ),
      { numRuns: 100 },
    );
  });

  it(`lists at most ${MAX_SIMULATION_CHANGES} changes, in sample order`, () => {
    const samples = decidedByStarter(
      Array.from({ length: 250 }, (_, n) => request(`merge pull request ${n}`)),
    );
    const result = simulatePolicy(samples, context([{ id: 'allow-all', effect: 'ALLOW' }]));
    assert.equal(result.changed, 250);
    assert.equal(result.changes.length, MAX_SIMULATION_CHANGES);
    assert.deepEqual(
      result.changes.slice(0, 3).map((c) => c.intentId),
      ['i-0', 'i-1', 'i-2'],
    );
  });
});

describe('describeTransitions', () => {
  it('says what the change turns into what', () => {
    assert.equal(
      describeTransitions({ 'ESCALATED->APPROVED': 4 }),
      'this change turns 4 escalations into approvals',
    );
    assert.equal(
      describeTransitions({ 'APPROVED->DENIED': 1, 'ESCALATED->APPROVED': 2 }),
      'this change turns 1 approval into a denial; 2 escalations into approvals',
    );
    assert.equal(describeTransitions({}), 'this change turns no decision');
  });
});
