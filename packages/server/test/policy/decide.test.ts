import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FLOOR_MATCHED_RULE } from '../../src/policy/catastrophic-floor.js';
import {
  decide,
  mostSevere,
  SIGNAL_IDS,
  SIGNAL_PRIORITY,
  signalRule,
} from '../../src/policy/most-severe-wins.js';
import type { MatchedRule } from '../../src/policy/rule.js';

const r = (id: string, effect: MatchedRule['effect'], priority = 100): MatchedRule => ({
  id,
  effect,
  priority,
});

describe('decide', () => {
  test('most severe effect wins: DENY > REQUIRE_APPROVAL > ESCALATE > ALLOW', () => {
    assert.equal(decide([r('a', 'ALLOW')]).effect, 'ALLOW');
    assert.equal(decide([r('a', 'ALLOW'), r('b', 'ESCALATE')]).effect, 'ESCALATE');
    assert.equal(
      decide([r('b', 'ESCALATE'), r('c', 'REQUIRE_APPROVAL'), r('a', 'ALLOW')]).effect,
      'REQUIRE_APPROVAL',
    );
    assert.equal(
      decide([r('b', 'ESCALATE'), r('d', 'DENY', 10_000), r('c', 'REQUIRE_APPROVAL', 2)]).effect,
      'DENY',
    );
  });

  test('deciding rule: among the winning effect, lowest priority then lowest id', () => {
    const list = [
      r('z', 'DENY', 50),
      r('b', 'DENY', 7),
      r('a', 'DENY', 7),
      r('x', 'ALLOW', 2),
      r('A', 'DENY', 8),
    ];
    const decision = decide(list);
    assert.deepEqual(decision.decidingRule, { id: 'a', effect: 'DENY', priority: 7 });
    assert.equal(decision.decidingRule, list[2], 'the deciding rule is one of the given objects');
    assert.equal(decide([r('b', 'DENY'), r('B', 'DENY')]).decidingRule.id, 'B', 'code-unit order');
    assert.equal(decide([r('a10', 'DENY'), r('a9', 'DENY')]).decidingRule.id, 'a10', 'no numeric collation');
  });

  test('signals take part as pseudo-rules with priority 0', () => {
    assert.equal(SIGNAL_PRIORITY, 0);
    const low = signalRule(SIGNAL_IDS.lowConfidence, 'ESCALATE');
    assert.deepEqual(low, { id: 'signal:low-confidence', effect: 'ESCALATE', priority: 0 });
    const allowed = decide([r('starter/allow-reads', 'ALLOW', 100), low]);
    assert.equal(allowed.effect, 'ESCALATE');
    assert.equal(allowed.decidingRule.id, 'signal:low-confidence');
    // Equal effect: the signal sorts before the floor (1) and tenant rules (2..10000).
    const tie = decide([
      r('escalate-writes', 'ESCALATE', 2),
      FLOOR_MATCHED_RULE,
      signalRule(SIGNAL_IDS.escalateThreshold, 'ESCALATE'),
    ]);
    assert.equal(tie.decidingRule.id, 'signal:escalate-threshold');
    const deny = decide([r('escalate-writes', 'ESCALATE', 2), signalRule(SIGNAL_IDS.denyThreshold, 'DENY')]);
    assert.equal(deny.decidingRule.id, 'signal:deny-threshold');
    // A more severe rule still beats a signal.
    assert.equal(
      decide([signalRule(SIGNAL_IDS.escalateThreshold, 'ESCALATE'), r('no', 'DENY', 10_000)]).decidingRule.id,
      'no',
    );
    // Among signals of the same effect, the lowest id.
    assert.equal(
      decide([
        signalRule(SIGNAL_IDS.lowConfidence, 'ESCALATE'),
        signalRule(SIGNAL_IDS.escalateThreshold, 'ESCALATE'),
      ]).decidingRule.id,
      'signal:escalate-threshold',
    );
  });

  test('the floor decides an otherwise allowed request', () => {
    const decision = decide([r('allow-all', 'ALLOW', 2), FLOOR_MATCHED_RULE]);
    assert.equal(decision.effect, 'ESCALATE');
    assert.equal(decision.decidingRule.id, 'catastrophic-floor');
  });

  test("throws on an empty list (default deny is the caller's gate)", () => {
    assert.throws(() => decide([]), /no matched rule/);
  });

  test('mostSevere', () => {
    assert.equal(mostSevere('ALLOW', 'ESCALATE'), 'ESCALATE');
    assert.equal(mostSevere('DENY', 'REQUIRE_APPROVAL'), 'DENY');
    assert.equal(mostSevere('REQUIRE_APPROVAL', 'ESCALATE'), 'REQUIRE_APPROVAL');
  });
});
