import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RE2JS } from 're2js';
import { POLICY_PACKS, packRules } from '../../src/policy/packs.js';
import {
  countedRepetitions,
  MAX_PATTERN_PROGRAM_SIZE,
  MAX_PATTERN_REPEAT,
} from '../../src/policy/pattern.js';
import { MAX_CONDITION_DEPTH, MAX_ISSUES, MAX_POLICY_MATCH_STEPS } from '../../src/policy/policy-limits.js';
import { MAX_BARE_ARGS_MATCHES, MAX_RULES, OPERATORS } from '../../src/policy/rule.js';
import { type PolicyIssue, validatePolicy } from '../../src/policy/validate-policy.js';

function issuesOf(rules: unknown[], allowPackIds = false): PolicyIssue[] {
  const result = validatePolicy({ rules }, { allowPackIds });
  assert.equal(result.ok, false, 'expected the policy to be refused');
  return result.ok ? [] : result.issues;
}

/** The single issue of a one-rule policy; checks that it names the rule and the field. */
function onlyIssue(rule: Record<string, unknown>, field: string, message: RegExp): PolicyIssue {
  const issues = issuesOf([rule]);
  assert.equal(issues.length, 1, `expected one issue, got ${JSON.stringify(issues)}`);
  const issue = issues[0] as PolicyIssue;
  assert.equal(issue.field, field);
  assert.equal(issue.path, field === '' ? 'rules[0]' : `rules[0].${field}`);
  if (typeof rule.id === 'string') {
    assert.equal(issue.ruleId, rule.id);
    assert.ok(issue.message.startsWith(`rule ${JSON.stringify(rule.id)}: ${field}: `), issue.message);
  } else {
    assert.ok(issue.message.startsWith(`rules[0]: ${field}: `), issue.message);
  }
  assert.match(issue.message, message);
  return issue;
}

const cond = (c: Record<string, unknown>) => ({ id: 'x', effect: 'DENY', conditions: { all: [c] } });

describe('validatePolicy: shape', () => {
  test('accepts a full rule and returns fresh objects with known fields only', () => {
    const input = {
      rules: [
        {
          id: 'r1',
          description: 'everything',
          effect: 'REQUIRE_APPROVAL',
          priority: 2,
          bindings: {
            actorIds: ['agent-*'],
            actorTypes: ['agent', 'service', 'human', 'workflow'],
            targetSystems: ['acme/*'],
            oiCodes: ['OI-1??'],
          },
          conditions: {
            all: [{ path: 'risk.score', op: 'GTE', value: 10 }],
            any: [
              { path: 'args.sql', op: 'MATCHES', value: '(?i)drop' },
              { all: [{ path: 'args', op: 'EXISTS' }] },
            ],
            not: { path: 'intent.confidence', op: 'LT', valuePath: 'thresholds.lowConfidenceEscalateBelow' },
          },
        },
        { id: 'r2', effect: 'ALLOW', priority: 10_000 },
      ],
    };
    const result = validatePolicy(input);
    assert.ok(result.ok);
    assert.deepEqual(result.rules, input.rules);
    assert.notEqual(result.rules[0], input.rules[0]);
    assert.equal(validatePolicy(input.rules).ok, true, 'a bare rules array is accepted too');
  });

  test('refuses bodies that are not {rules: [...]}', () => {
    for (const body of [null, 42, 'x', {}, { policy: [] }]) {
      const result = validatePolicy(body);
      assert.equal(result.ok, false);
    }
    const result = validatePolicy({ rules: {} });
    assert.ok(!result.ok);
    assert.equal(result.issues[0]?.path, 'rules');
    assert.ok(validatePolicy({ rules: [] }).ok, 'an empty policy is valid (everything denies by default)');
  });

  test('a rule must be an object', () => {
    const [issue] = issuesOf(['nope']);
    assert.equal(issue?.path, 'rules[0]');
    assert.match(issue?.message ?? '', /^rules\[0\]: must be an object/);
  });

  test('unknown fields are refused in rules, bindings, groups and conditions', () => {
    onlyIssue({ id: 'x', effect: 'DENY', when: 1 }, 'when', /unknown field/);
    onlyIssue({ id: 'x', effect: 'DENY', bindings: { actors: ['a'] } }, 'bindings.actors', /unknown field/);
    onlyIssue(
      { id: 'x', effect: 'DENY', conditions: { all: [{ path: 'args', op: 'EXISTS' }], one: [] } },
      'conditions.one',
      /unknown field/,
    );
    onlyIssue(cond({ path: 'args', op: 'EXISTS', flags: 'i' }), 'conditions.all[0].flags', /unknown field/);
  });

  test('a bare condition in place of a group gets a hint', () => {
    const issues = issuesOf([{ id: 'x', effect: 'DENY', conditions: { path: 'args', op: 'EXISTS' } }]);
    assert.ok(
      issues.some((i) => i.field === 'conditions.path' && /put the condition in all/.test(i.message)),
    );
  });
});

describe('validatePolicy: ids', () => {
  test('id is required, a string, 1..200 characters, no control characters', () => {
    onlyIssue({ effect: 'DENY' }, 'id', /is required/);
    onlyIssue({ id: 7, effect: 'DENY' }, 'id', /must be a string/);
    onlyIssue({ id: '', effect: 'DENY' }, 'id', /1\.\.200/);
    onlyIssue({ id: 'a'.repeat(201), effect: 'DENY' }, 'id', /1\.\.200/);
    assert.ok(validatePolicy({ rules: [{ id: 'a'.repeat(200), effect: 'DENY' }] }).ok);
    onlyIssue({ id: 'a\nb', effect: 'DENY' }, 'id', /control characters/);
  });

  test('every reserved id is refused', () => {
    onlyIssue(
      { id: 'catastrophic-floor', effect: 'DENY' },
      'id',
      /reserved for the built-in catastrophic floor/,
    );
    for (const id of ['signal:deny-threshold', 'signal:default', 'a:b', ':']) {
      onlyIssue({ id, effect: 'DENY' }, 'id', /":" are reserved/);
    }
    for (const id of ['starter/allow-reads', 'a/b', '/']) {
      onlyIssue({ id, effect: 'DENY' }, 'id', /"\/" are reserved for pack rules/);
    }
  });

  test('pack ids <pack>/<rule> only with allowPackIds', () => {
    assert.ok(
      validatePolicy({ rules: [{ id: 'starter/allow-reads', effect: 'ALLOW' }] }, { allowPackIds: true }).ok,
    );
    for (const id of ['a/b/c', '/b', 'a/']) {
      const [issue] = issuesOf([{ id, effect: 'DENY' }], true);
      assert.match(issue?.message ?? '', /<pack>\/<rule>/);
    }
    const [floor] = issuesOf([{ id: 'catastrophic-floor', effect: 'DENY' }], true);
    assert.match(floor?.message ?? '', /reserved/);
    const [signal] = issuesOf([{ id: 'signal:x', effect: 'DENY' }], true);
    assert.match(signal?.message ?? '', /reserved/);
  });

  test('ids are unique', () => {
    const issues = issuesOf([
      { id: 'a', effect: 'DENY' },
      { id: 'b', effect: 'DENY' },
      { id: 'a', effect: 'ALLOW' },
    ]);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]?.path, 'rules[2].id');
    assert.match(issues[0]?.message ?? '', /^rule "a": id: duplicate id \(first used by rules\[0\]\)/);
  });
});

describe('validatePolicy: effect, priority, description, bindings', () => {
  test('effect is one of the four', () => {
    onlyIssue({ id: 'x' }, 'effect', /is required/);
    onlyIssue({ id: 'x', effect: 'allow' }, 'effect', /one of ALLOW, DENY, REQUIRE_APPROVAL, ESCALATE/);
    onlyIssue({ id: 'x', effect: 'APPROVE' }, 'effect', /one of/);
  });

  test('priority is an integer 2..10000', () => {
    for (const priority of [1, 0, -5, 10_001, 2.5, '5', null]) {
      onlyIssue({ id: 'x', effect: 'DENY', priority }, 'priority', /integer 2\.\.10000/);
    }
    for (const priority of [2, 100, 10_000])
      assert.ok(validatePolicy({ rules: [{ id: 'x', effect: 'DENY', priority }] }).ok);
  });

  test('description is a string', () => {
    onlyIssue({ id: 'x', effect: 'DENY', description: 5 }, 'description', /string/);
  });

  test('bindings are non-empty arrays of strings; actorTypes from the enum', () => {
    onlyIssue({ id: 'x', effect: 'DENY', bindings: [] }, 'bindings', /must be an object/);
    onlyIssue(
      { id: 'x', effect: 'DENY', bindings: { actorIds: 'agent-*' } },
      'bindings.actorIds',
      /array of strings/,
    );
    onlyIssue(
      { id: 'x', effect: 'DENY', bindings: { actorIds: [] } },
      'bindings.actorIds',
      /must not be empty/,
    );
    onlyIssue(
      { id: 'x', effect: 'DENY', bindings: { targetSystems: ['a', 3] } },
      'bindings.targetSystems[1]',
      /string/,
    );
    onlyIssue({ id: 'x', effect: 'DENY', bindings: { oiCodes: [''] } }, 'bindings.oiCodes[0]', /1\.\.256/);
    onlyIssue(
      { id: 'x', effect: 'DENY', bindings: { actorTypes: ['agent', 'robot'] } },
      'bindings.actorTypes[1]',
      /one of service, agent, human, workflow/,
    );
    onlyIssue(
      { id: 'x', effect: 'DENY', bindings: { actorTypes: ['agent*'] } },
      'bindings.actorTypes[0]',
      /one of/,
    );
  });
});

describe('validatePolicy: condition groups', () => {
  test('all/any are arrays, not single conditions, and not empty', () => {
    onlyIssue(
      { id: 'x', effect: 'DENY', conditions: { all: { path: 'args', op: 'EXISTS' } } },
      'conditions.all',
      /must be an array/,
    );
    onlyIssue({ id: 'x', effect: 'DENY', conditions: { any: [] } }, 'conditions.any', /must not be empty/);
    onlyIssue({ id: 'x', effect: 'DENY', conditions: {} }, 'conditions', /at least one of all, any, not/);
    onlyIssue(
      { id: 'x', effect: 'DENY', conditions: { all: [{ not: {} }] } },
      'conditions.all[0].not',
      /at least one of all, any, not/,
    );
    onlyIssue(
      { id: 'x', effect: 'DENY', conditions: { all: [5] } },
      'conditions.all[0]',
      /condition .* or a group/,
    );
    onlyIssue({ id: 'x', effect: 'DENY', conditions: 'args' }, 'conditions', /must be a condition group/);
  });

  test(`groups nest at most ${MAX_CONDITION_DEPTH} levels`, () => {
    const nest = (levels: number): Record<string, unknown> => {
      let group: Record<string, unknown> = { all: [{ path: 'args', op: 'EXISTS' }] };
      for (let i = 1; i < levels; i += 1) group = { all: [group] };
      return group;
    };
    assert.ok(
      validatePolicy({ rules: [{ id: 'x', effect: 'DENY', conditions: nest(MAX_CONDITION_DEPTH) }] }).ok,
    );
    const issues = issuesOf([{ id: 'x', effect: 'DENY', conditions: nest(MAX_CONDITION_DEPTH + 1) }]);
    assert.equal(issues.length, 1);
    assert.match(issues[0]?.message ?? '', /deeper than 16 levels/);
    assert.match(issues[0]?.field ?? '', /^conditions(\.all\[0\]){16}$/);
    // `not` nesting counts too, and absurd depth is refused without recursing through it all.
    let deep: Record<string, unknown> = { path: 'args', op: 'EXISTS' };
    for (let i = 0; i < 10_000; i += 1) deep = { not: deep };
    assert.equal(validatePolicy({ rules: [{ id: 'x', effect: 'DENY', conditions: deep }] }).ok, false);
  });
});

describe('validatePolicy: conditions', () => {
  test('path must parse, with the parse error in the message', () => {
    onlyIssue(cond({ path: 'request.x', op: 'EXISTS' }), 'conditions.all[0].path', /unknown root "request"/);
    onlyIssue(cond({ path: 'args[', op: 'EXISTS' }), 'conditions.all[0].path', /after "\["/);
    onlyIssue(cond({ op: 'EXISTS' }), 'conditions.all[0].path', /is required/);
    onlyIssue(cond({ path: 3, op: 'EXISTS' }), 'conditions.all[0].path', /must be a string/);
  });

  test('op must be known', () => {
    onlyIssue(cond({ path: 'args', op: 'LIKE', value: 'x' }), 'conditions.all[0].op', /one of EQ, NEQ/);
    onlyIssue(cond({ path: 'args', value: 'x' }), 'conditions.all[0].op', /is required/);
  });

  test('exactly one of value / valuePath, none for EXISTS', () => {
    for (const op of OPERATORS.filter((o) => o !== 'EXISTS')) {
      onlyIssue(cond({ path: 'risk.score', op }), 'conditions.all[0]', new RegExp(`${op} takes exactly one`));
      onlyIssue(
        cond({ path: 'risk.score', op, value: 1, valuePath: 'thresholds.denyAt' }),
        'conditions.all[0]',
        /exactly one of value or valuePath/,
      );
    }
    onlyIssue(cond({ path: 'args', op: 'EXISTS', value: true }), 'conditions.all[0]', /EXISTS takes neither/);
    onlyIssue(
      cond({ path: 'args', op: 'EXISTS', valuePath: 'args' }),
      'conditions.all[0]',
      /EXISTS takes neither/,
    );
    assert.ok(
      validatePolicy({ rules: [cond({ path: 'args.x', op: 'EQ', value: null })] }).ok,
      'null is a value',
    );
  });

  test('valuePath must parse and name a single value; MATCHES takes no valuePath', () => {
    onlyIssue(
      cond({ path: 'risk.score', op: 'GT', valuePath: 'nope' }),
      'conditions.all[0].valuePath',
      /unknown root/,
    );
    onlyIssue(cond({ path: 'risk.score', op: 'GT', valuePath: 5 }), 'conditions.all[0].valuePath', /string/);
    onlyIssue(
      cond({ path: 'risk.score', op: 'IN', valuePath: 'args.x[*]' }),
      'conditions.all[0].valuePath',
      /\[\*\]/,
    );
    onlyIssue(
      cond({ path: 'args.x', op: 'EQ', valuePath: 'args' }),
      'conditions.all[0].valuePath',
      /bare args/,
    );
    onlyIssue(
      cond({ path: 'args.x', op: 'MATCHES', valuePath: 'args.p' }),
      'conditions.all[0].valuePath',
      /MATCHES/,
    );
    for (const op of ['IN', 'NOT_IN', 'GT', 'GTE', 'LT', 'LTE', 'EQ', 'NEQ', 'CONTAINS']) {
      assert.ok(
        validatePolicy({ rules: [cond({ path: 'risk.score', op, valuePath: 'thresholds.denyAt' })] }).ok,
        op,
      );
    }
  });

  test('IN / NOT_IN need a non-empty array', () => {
    for (const op of ['IN', 'NOT_IN']) {
      onlyIssue(cond({ path: 'args.x', op, value: 'a' }), 'conditions.all[0].value', /needs an array/);
      onlyIssue(cond({ path: 'args.x', op, value: [] }), 'conditions.all[0].value', /non-empty array/);
    }
  });

  test('GT / GTE / LT / LTE need a number', () => {
    for (const op of ['GT', 'GTE', 'LT', 'LTE']) {
      for (const value of ['5', null, [1], true]) {
        onlyIssue(
          cond({ path: 'risk.score', op, value }),
          'conditions.all[0].value',
          new RegExp(`${op} needs a number`),
        );
      }
    }
  });

  test('CONTAINS and EQ take any JSON value', () => {
    for (const value of ['s', 1, true, null, [1, 'a'], { k: [1] }]) {
      assert.ok(validatePolicy({ rules: [cond({ path: 'args.x', op: 'CONTAINS', value })] }).ok);
      assert.ok(validatePolicy({ rules: [cond({ path: 'args.x', op: 'EQ', value })] }).ok);
    }
  });

  test('MATCHES needs a string pattern that RE2 accepts, and says why not', () => {
    const field = 'conditions.all[0].value';
    onlyIssue(cond({ path: 'args', op: 'MATCHES', value: 5 }), field, /MATCHES needs a string pattern/);
    const cases: Array<[string, RegExp]> = [
      ['(a)\\1', /pattern is not RE2 \(backreference\): "\\\\1" at offset 3/],
      ['(?<n>a)\\k<n>', /pattern is not RE2 \(backreference\)/],
      ['(?P<n>a)(?P=n)', /pattern is not RE2 \(backreference\)/],
      ['foo(?=bar)', /pattern is not RE2 \(lookaround\): "\(\?=" at offset 3/],
      ['foo(?!bar)', /pattern is not RE2 \(lookaround\)/],
      ['(?<=foo)bar', /pattern is not RE2 \(lookaround\): "\(\?<="/],
      ['(?<!foo)bar', /pattern is not RE2 \(lookaround\)/],
      ['(a', /pattern is not valid RE2 syntax: missing closing \)/],
      ['a**', /not valid RE2 syntax: invalid nested repetition/],
      ['x{1001}', /not valid RE2 syntax: invalid repeat count/],
      ['\\Z', /not valid RE2 syntax: invalid escape/],
      ['a'.repeat(1025), /longer than 1024/],
    ];
    for (const [pattern, message] of cases) {
      const issue = onlyIssue(cond({ path: 'args.sql', op: 'MATCHES', value: pattern }), field, message);
      assert.match(issue.message, /^rule "x": conditions\.all\[0\]\.value: pattern is/);
    }
    // RE2 syntax JavaScript lacks is fine: the pattern goes to RE2, not RegExp.
    // `\10` is an octal escape under RE2 (not a backreference), so `(x)\10` is accepted.
    for (const pattern of [
      '(?i)drop',
      '\\Atruncate\\z',
      '(?P<name>x)',
      '\\pL+',
      '[[:alpha:]]',
      '',
      '[(?=]',
      '\\(?=x\\)',
      '(x)\\10',
    ]) {
      assert.ok(
        validatePolicy({ rules: [cond({ path: 'args.sql', op: 'MATCHES', value: pattern })] }).ok,
        pattern,
      );
    }
  });

  test('issues in nested positions name the full field', () => {
    const issues = issuesOf([
      {
        id: 'deep',
        effect: 'DENY',
        conditions: {
          any: [
            { all: [{ path: 'args.x', op: 'EQ' }] },
            { not: { path: 'risk.score', op: 'GT', value: 'x' } },
          ],
        },
      },
    ]);
    assert.deepEqual(
      issues.map((i) => i.field),
      ['conditions.any[0].all[0]', 'conditions.any[1].not.value'],
    );
  });
});

describe('validatePolicy: limits', () => {
  test(`at most ${MAX_RULES} rules`, () => {
    const rules = Array.from({ length: MAX_RULES }, (_, i) => ({ id: `r${i}`, effect: 'ALLOW' }));
    assert.ok(validatePolicy({ rules }).ok);
    const result = validatePolicy({ rules: [...rules, { id: 'one-more', effect: 'ALLOW' }] });
    assert.ok(!result.ok);
    assert.equal(result.issues.length, 1);
    assert.equal(result.issues[0]?.path, 'rules');
    assert.match(result.issues[0]?.message ?? '', /at most 2000 rules per policy \(got 2001\)/);
  });

  test(`at most ${MAX_BARE_ARGS_MATCHES} bare-args MATCHES conditions across the policy`, () => {
    const matchesRule = (i: number, n: number) => ({
      id: `m${i}`,
      effect: 'DENY',
      conditions: {
        any: Array.from({ length: n }, (_, j) => ({ path: 'args', op: 'MATCHES', value: `p${i}-${j}` })),
      },
    });
    // 50 spread over rules is fine; MATCHES on args.x and other operators on bare args do not count.
    const fifty = [matchesRule(0, 20), matchesRule(1, 30)];
    const others = {
      id: 'other',
      effect: 'DENY',
      conditions: {
        all: [
          { path: 'args.x', op: 'MATCHES', value: 'x' },
          { path: 'args', op: 'CONTAINS', value: 'x' },
          { path: 'args', op: 'EQ', value: 'x' },
        ],
      },
    };
    assert.ok(validatePolicy({ rules: [...fifty, others] }).ok);
    const issues = issuesOf([...fifty, matchesRule(2, 1)]);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]?.ruleId, 'm2');
    assert.equal(issues[0]?.field, 'conditions.any[0].path');
    assert.match(
      issues[0]?.message ?? '',
      /at most 50 bare-args MATCHES conditions per policy \(this is number 51\)/,
    );
  });

  test(`counted repetitions are at most ${MAX_PATTERN_REPEAT}, wherever they are written`, () => {
    const field = 'conditions.all[0].value';
    // The review's pattern: [a-z]{1000} ninety times compiles to ~90,000 instructions.
    const review = '[a-z]{1000}'.repeat(90);
    onlyIssue(
      cond({ path: 'args.s', op: 'MATCHES', value: review }),
      field,
      /pattern repeats too much: "\{1000\}" at offset 5; counted repetitions may not exceed 100/,
    );
    for (const pattern of ['x{101}', 'x{2,101}', 'x{101,}', '(?:ab){0,200}', '[{]x{3}y{150}']) {
      onlyIssue(cond({ path: 'args.s', op: 'MATCHES', value: pattern }), field, /pattern repeats too much/);
    }
    // Escaped braces, quoted text, classes, \p{…} and \x{…} hold no repetition.
    for (const pattern of [
      'x{100}',
      'x{0,100}',
      '\\{500\\}',
      '\\Qa{500}\\E',
      '[{500}]',
      '\\p{Greek}{3}',
      '\\x{41}{2}',
      'a{,500}',
    ]) {
      assert.ok(
        validatePolicy({ rules: [cond({ path: 'args.s', op: 'MATCHES', value: pattern })] }).ok,
        pattern,
      );
    }
    assert.deepEqual(countedRepetitions('a{2}[{9}]\\Q{7}\\E(b){3,40}\\{5}c{1,}'), [
      { text: '{2}', offset: 1, bound: 2 },
      { text: '{3,40}', offset: 19, bound: 40 },
      { text: '{1,}', offset: 30, bound: 1 },
    ]);
  });

  test(`a pattern compiles to at most ${MAX_PATTERN_PROGRAM_SIZE} instructions`, () => {
    const big = '[a-z]{100}'.repeat(6);
    assert.ok(RE2JS.compile(big).programSize() > MAX_PATTERN_PROGRAM_SIZE);
    onlyIssue(
      cond({ path: 'args.s', op: 'MATCHES', value: big }),
      'conditions.all[0].value',
      /pattern is too costly: it compiles to \d+ RE2 instructions, more than 500/,
    );
    const fits = '[a-z]{100}'.repeat(4);
    assert.ok(validatePolicy({ rules: [cond({ path: 'args.s', op: 'MATCHES', value: fits })] }).ok);
  });

  test('MATCHES conditions × the longest text of their path are bounded across the policy', () => {
    const pattern = '[a-z]{100}'.repeat(4);
    const rule = (i: number, path: string) => ({
      id: `m${i}`,
      effect: 'DENY',
      conditions: { all: [{ path, op: 'MATCHES', value: pattern }] },
    });
    // Over args (64 KiB) each costs ~26 million steps: seven fit, the eighth is refused.
    const onArgs = Array.from({ length: 7 }, (_, i) => rule(i, `args.f${i}`));
    assert.ok(validatePolicy({ rules: onArgs }).ok);
    const issues = issuesOf([...onArgs, rule(7, 'args.more')]);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]?.ruleId, 'm7');
    assert.equal(issues[0]?.field, 'conditions.all[0].value');
    assert.match(issues[0]?.message ?? '', new RegExp(`more than ${MAX_POLICY_MATCH_STEPS}`));
    // Over short fields the same patterns cost far less: actor.id holds at most 200 characters.
    const onActor = Array.from({ length: 200 }, (_, i) => rule(i, 'actor.id'));
    assert.ok(validatePolicy({ rules: onActor }).ok);
  });

  test('every pack, and all of them together, pass the limits', () => {
    for (const pack of POLICY_PACKS) {
      assert.ok(validatePolicy({ rules: packRules(pack) }, { allowPackIds: true }).ok, pack.id);
    }
    assert.ok(validatePolicy({ rules: POLICY_PACKS.flatMap(packRules) }, { allowPackIds: true }).ok);
  });

  test(`at most ${MAX_ISSUES} issues are reported`, () => {
    const rules = Array.from({ length: 500 }, (_, i) => ({ id: `r${i}`, effect: 'NOPE' }));
    const result = validatePolicy({ rules });
    assert.ok(!result.ok);
    assert.equal(result.issues.length, MAX_ISSUES);
  });
});
