import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import { type Decision, decide, SIGNAL_IDS, signalRule } from '../../src/policy/most-severe-wins.js';
import { type EvaluationDocument, type MatchedRule, type Rule, SEVERITY } from '../../src/policy/rule.js';
import { validatePolicy } from '../../src/policy/validate-policy.js';
import { docArb, ruleArb, rulesArb } from './arbitraries.js';
import { doc, policyOf } from './fixtures.js';

/** The decision as the gates would make it: rules plus signals; nothing matched → default DENY. */
function decision(rules: Rule[], d: EvaluationDocument, signals: MatchedRule[] = []): Decision {
  const matched = [...evaluatePolicy(compilePolicy(rules), d, { at: 0, explain: false }).matched, ...signals];
  return matched.length === 0
    ? { effect: 'DENY', decidingRule: signalRule(SIGNAL_IDS.default, 'DENY') }
    : decide(matched);
}

const signalsArb: fc.Arbitrary<MatchedRule[]> = fc.subarray([
  signalRule(SIGNAL_IDS.denyThreshold, 'DENY'),
  signalRule(SIGNAL_IDS.escalateThreshold, 'ESCALATE'),
  signalRule(SIGNAL_IDS.lowConfidence, 'ESCALATE'),
]);

describe('policy properties', () => {
  test('shuffling rule order (and signal order) never changes the decision', () => {
    fc.assert(
      fc.property(
        rulesArb.chain((rules) =>
          fc.tuple(
            fc.constant(rules),
            fc.shuffledSubarray(rules, { minLength: rules.length, maxLength: rules.length }),
          ),
        ),
        signalsArb.chain((s) =>
          fc.tuple(fc.constant(s), fc.shuffledSubarray(s, { minLength: s.length, maxLength: s.length })),
        ),
        docArb,
        ([rules, shuffled], [signals, shuffledSignals], d) => {
          const a = decision(rules, d, signals);
          const b = decision(shuffled, d, shuffledSignals);
          assert.deepEqual(b, a);
          // The matched list itself is in policy order whatever the input order.
          assert.deepEqual(
            evaluatePolicy(compilePolicy(shuffled), d, { at: 0, explain: true }),
            evaluatePolicy(compilePolicy(rules), d, { at: 0, explain: true }),
          );
        },
      ),
      { numRuns: 1_000 },
    );
  });

  test('adding a DENY rule that matches never lowers severity (and makes the decision DENY)', () => {
    const denyArb = ruleArb(fc.constant('added-deny')).map((r) => ({ ...r, effect: 'DENY' as const }));
    let matchedCount = 0;
    fc.assert(
      fc.property(rulesArb, denyArb, signalsArb, docArb, (rules, deny, signals, d) => {
        const before = decision(rules, d, signals);
        const withDeny = [...rules.filter((r) => r.id !== deny.id), deny];
        const matched = evaluatePolicy(compilePolicy(withDeny), d, { at: 0, explain: false }).matched.some(
          (m) => m.id === deny.id,
        );
        const after = decision(withDeny, d, signals);
        assert.ok(SEVERITY[after.effect] >= SEVERITY[before.effect]);
        if (matched) {
          matchedCount += 1;
          assert.equal(after.effect, 'DENY');
        }
        // An unconditional DENY always matches.
        const always: Rule = { id: 'always-deny', effect: 'DENY', priority: 10_000 };
        assert.equal(decision([...rules, always], d, signals).effect, 'DENY');
      }),
      { numRuns: 1_000 },
    );
    assert.ok(matchedCount > 100, `the added DENY rule matched only ${matchedCount} times`);
  });

  test('a backreference or lookaround pattern is refused at validation, naming rule and field', () => {
    const literal = fc.stringMatching(/^[a-z0-9 ]{0,6}$/);
    // Not starting with a digit: RE2 reads `\10` as an octal escape, not a backreference.
    const after = fc.stringMatching(/^(?:[a-z ][a-z0-9 ]{0,5})?$/);
    const forbidden = fc.constantFrom(
      ['(x)\\1', 'backreference'],
      ['(x)(y)\\2', 'backreference'],
      ['(?P<n>x)\\k<n>', 'backreference'],
      ['(?P<n>x)(?P=n)', 'backreference'],
      ['(?=x)', 'lookaround'],
      ['(?!x)', 'lookaround'],
      ['(?<=x)', 'lookaround'],
      ['(?<!x)', 'lookaround'],
    );
    fc.assert(
      fc.property(
        literal,
        forbidden,
        after,
        fc.constantFrom('args', 'args.sql', 'proposedAction'),
        (pre, [construct, kind], post, path) => {
          const pattern = `${pre}${construct}${post}`;
          const result = validatePolicy({
            rules: [
              { id: 'p', effect: 'DENY', conditions: { any: [{ path, op: 'MATCHES', value: pattern }] } },
            ],
          });
          assert.ok(!result.ok, pattern);
          const issue = result.issues[0];
          assert.equal(issue?.ruleId, 'p');
          assert.equal(issue?.field, 'conditions.any[0].value');
          assert.match(
            issue?.message ?? '',
            new RegExp(`^rule "p": conditions\\.any\\[0\\]\\.value: pattern is not RE2 \\(${kind}\\)`),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  test('(a+)+$ against 100,000 "a" followed by "!" returns (hang guard; timings in bench/)', {
    timeout: 10_000,
  }, () => {
    const policy = policyOf([
      {
        id: 'redos',
        effect: 'DENY',
        conditions: { any: [{ path: 'args', op: 'MATCHES', value: '(a+)+$' }] },
      },
      {
        id: 'redos-field',
        effect: 'DENY',
        conditions: { any: [{ path: 'args.s', op: 'MATCHES', value: '^(a|aa)+$' }] },
      },
      {
        id: 'redos-action',
        effect: 'DENY',
        conditions: { any: [{ path: 'proposedAction', op: 'MATCHES', value: '(.*a){20}!x' }] },
      },
    ]);
    const evil = `${'a'.repeat(100_000)}!`;
    // The default budget would stop this evaluation (evaluation-budget.test.ts); this test is about the engine.
    const budgetSteps = 100_000_000;
    const result = evaluatePolicy(policy, doc({ proposedAction: evil.slice(0, 4000), args: { s: evil } }), {
      at: 0,
      explain: true,
      budgetSteps,
    });
    // None can match (the text ends in "!"); a backtracking engine would take exponential time to find out.
    assert.deepEqual(result.matched, []);
    assert.equal(result.explanation?.length, 3);
    // And a match is still found on the same shape of input when there is one.
    const hit = evaluatePolicy(policy, doc({ args: { s: 'a'.repeat(100_000) } }), {
      at: 0,
      explain: false,
      budgetSteps,
    });
    assert.deepEqual(
      hit.matched.map((m) => m.id),
      ['redos', 'redos-field'],
    );
  });
});
