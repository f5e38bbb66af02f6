import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateIntent } from '../../src/intent/domain/evaluate-intent.js';
import { GATES, type Gate, type GateContext } from '../../src/intent/domain/gates.js';
import type { IntentRequest } from '../../src/intent/domain/intent-request.js';
import { DEFAULT_THRESHOLDS } from '../../src/intent/domain/thresholds.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import type { Rule } from '../../src/policy/rule.js';

const REQUEST: IntentRequest = {
  tenantId: 'acme',
  actor: { id: 'agent-7', type: 'agent' },
  targetSystem: 'acme/payments',
  proposedAction: 'merge pull request 42',
  riskContext: { baseRiskScore: 10 },
};

const ALLOW_MERGES: Rule[] = [
  {
    id: 'allow-merge',
    effect: 'ALLOW',
    priority: 10,
    conditions: { all: [{ path: 'proposedAction', op: 'CONTAINS', value: 'merge' }] },
  },
];

function context(overrides: Partial<GateContext> = {}, rules: Rule[] = ALLOW_MERGES): GateContext {
  return {
    killSwitch: { enabled: false, reason: null },
    actorBlocked: false,
    thresholds: DEFAULT_THRESHOLDS,
    floorEnabled: true,
    policy: compilePolicy(rules),
    evaluatedAt: 0,
    ...overrides,
  };
}

const names = GATES.map(([gate]) => gate);

describe('the gate pipeline', () => {
  it('runs the gates of contract §4.6 in order', () => {
    assert.deepEqual(names, ['kill_switch', 'rbac', 'structural', 'authority_rules', 'default']);
  });

  it('records as gateTrace exactly the gates that ran, the deciding one last', () => {
    const cases: Array<[string, GateContext, IntentRequest, Gate]> = [
      ['kill switch', context({ killSwitch: { enabled: true, reason: 'incident' } }), REQUEST, 'kill_switch'],
      ['blocked actor', context({ actorBlocked: true }), REQUEST, 'rbac'],
      ['a matching rule', context(), REQUEST, 'authority_rules'],
      [
        'the floor, escalated through the rules',
        context({}, []),
        { ...REQUEST, proposedAction: 'drop table users' },
        'authority_rules',
      ],
      ['nothing matched', context({}, []), REQUEST, 'default'],
    ];
    for (const [label, gates, request, decidedBy] of cases) {
      const evaluation = evaluateIntent({ ...gates, request, explain: false });
      assert.deepEqual(evaluation.gateTrace, names.slice(0, names.indexOf(decidedBy) + 1), label);
    }
  });

  it('never lets the structural gate decide alone: the floor reaches the decision through the rules', () => {
    const floor = evaluateIntent({
      ...context({}, []),
      request: { ...REQUEST, proposedAction: 'drop table users' },
      explain: false,
    });
    assert.equal(floor.outcome, 'ESCALATED');
    assert.equal(floor.queue, 'catastrophic-review');
    assert.equal(floor.decidingRule.id, 'catastrophic-floor');
  });
});
