import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RE2JS } from 're2js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { deepEqual, evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import { EvaluationPattern } from '../../src/policy/pattern.js';
import type { Condition, Operator } from '../../src/policy/rule.js';
import { doc, explain, holds, ids, policyOf } from './fixtures.js';

const ARGS = {
  sql: 'DELETE FROM users WHERE id = 1',
  count: 3,
  ratio: 0.5,
  force: false,
  nothing: null,
  tags: ['prod', 'db', 7, { k: 'v' }],
  files: [{ path: 'src/a.ts', size: 10 }, { path: 'docs/b.md', size: 2000 }, { name: 'no-path' }],
  'weird key': 'spaced',
  meta: { owner: 'acme', labels: { team: 'core' } },
};
const d = doc({ args: ARGS, github: { owner: 'acme', repo: 'payments', ref: 'main' } });

type Row = [path: string, op: Operator, value: unknown, expected: boolean];

function check(rows: Row[]): void {
  for (const [path, op, value, expected] of rows) {
    const c: Condition = op === 'EXISTS' ? { path, op } : { path, op, value };
    assert.equal(holds(c, d), expected, `${path} ${op} ${JSON.stringify(value)} should be ${expected}`);
  }
}

describe('operators on present, missing and mistyped paths', () => {
  test('EQ: deep equality, same type only', () => {
    check([
      ['args.count', 'EQ', 3, true],
      ['args.count', 'EQ', 3.0, true],
      ['args.count', 'EQ', '3', false],
      ['args.ratio', 'EQ', 0.5, true],
      ['args.force', 'EQ', false, true],
      ['args.force', 'EQ', 0, false],
      ['args.nothing', 'EQ', null, true],
      ['args.tags', 'EQ', ['prod', 'db', 7, { k: 'v' }], true],
      ['args.tags', 'EQ', ['db', 'prod', 7, { k: 'v' }], false],
      ['args.meta', 'EQ', { labels: { team: 'core' }, owner: 'acme' }, true],
      ['args.meta', 'EQ', { owner: 'acme' }, false],
      ['actor.type', 'EQ', 'agent', true],
      ['actor', 'EQ', { id: 'agent-7', type: 'agent' }, true],
      ['args.missing', 'EQ', null, false],
      ['args.sql.length', 'EQ', 30, false],
    ]);
  });

  test('NEQ: false on a missing path and on a type mismatch', () => {
    check([
      ['args.count', 'NEQ', 4, true],
      ['args.count', 'NEQ', 3, false],
      ['args.count', 'NEQ', '3', false],
      ['args.missing', 'NEQ', 'anything', false],
      ['args.nothing', 'NEQ', 'x', false],
      ['args.nothing', 'NEQ', null, false],
      ['args.meta', 'NEQ', { owner: 'other' }, true],
      ['risk.operation_type', 'NEQ', 'write', true],
    ]);
  });

  test('IN / NOT_IN: membership with deep equality; mismatch and absence are false', () => {
    check([
      ['args.count', 'IN', [1, 2, 3], true],
      ['args.count', 'IN', ['3'], false],
      ['args.meta.labels', 'IN', [{ team: 'core' }, 'x'], true],
      ['args.missing', 'IN', [null], false],
      ['args.nothing', 'IN', [null, 1], true],
      ['args.count', 'NOT_IN', [1, 2], true],
      ['args.count', 'NOT_IN', [1, 2, 3], false],
      ['args.count', 'NOT_IN', ['a', 'b'], false],
      ['args.count', 'NOT_IN', ['a', 4], true],
      ['args.missing', 'NOT_IN', ['x'], false],
      ['args.meta.labels', 'NOT_IN', [{ team: 'other' }], true],
      ['intent.oiCode', 'IN', ['OI-101', 'OI-105'], true],
    ]);
  });

  test('GT / GTE / LT / LTE: numbers only', () => {
    check([
      ['args.count', 'GT', 2, true],
      ['args.count', 'GT', 3, false],
      ['args.count', 'GTE', 3, true],
      ['args.count', 'LT', 3, false],
      ['args.count', 'LTE', 3, true],
      ['args.ratio', 'LT', 1, true],
      ['args.sql', 'GT', 0, false],
      ['args.sql', 'LT', 1e9, false],
      ['args.force', 'LT', 1, false],
      ['args.nothing', 'GTE', 0, false],
      ['args.tags', 'GT', 0, false],
      ['args.missing', 'LT', 1e9, false],
      ['risk.score', 'LT', 60, true],
    ]);
  });

  test('MATCHES: RE2 search anywhere in a string; non-strings are false', () => {
    check([
      ['args.sql', 'MATCHES', 'DELETE', true],
      ['args.sql', 'MATCHES', '^DELETE FROM \\w+', true],
      ['args.sql', 'MATCHES', 'delete', false],
      ['args.sql', 'MATCHES', '(?i)delete', true],
      ['args.sql', 'MATCHES', '\\Adelete\\z', false],
      ['args.sql', 'MATCHES', 'id = \\d+$', true],
      ['args.count', 'MATCHES', '3', false],
      ['args.tags', 'MATCHES', 'prod', false],
      ['args.missing', 'MATCHES', '', false],
      ['args.sql', 'MATCHES', '', true],
      ['proposedAction', 'MATCHES', '^list', true],
    ]);
  });

  test('CONTAINS: substring on strings, element on arrays', () => {
    check([
      ['args.sql', 'CONTAINS', 'FROM users', true],
      ['args.sql', 'CONTAINS', 'from users', false],
      ['args.sql', 'CONTAINS', '', true],
      ['args.sql', 'CONTAINS', 3, false],
      ['args.tags', 'CONTAINS', 'db', true],
      ['args.tags', 'CONTAINS', 7, true],
      ['args.tags', 'CONTAINS', '7', false],
      ['args.tags', 'CONTAINS', { k: 'v' }, true],
      ['args.tags', 'CONTAINS', 'pro', false],
      ['args.count', 'CONTAINS', 3, false],
      ['args.meta', 'CONTAINS', 'acme', false],
      ['args.missing', 'CONTAINS', 'x', false],
    ]);
  });

  test('EXISTS: present and not null', () => {
    check([
      ['args.sql', 'EXISTS', undefined, true],
      ['args.force', 'EXISTS', undefined, true],
      ['args.nothing', 'EXISTS', undefined, false],
      ['args.missing', 'EXISTS', undefined, false],
      ['github', 'EXISTS', undefined, true],
      ['github.ref', 'EXISTS', undefined, true],
    ]);
    assert.equal(
      holds({ path: 'github', op: 'EXISTS' }, doc()),
      false,
      'github: null means no GitHub context',
    );
  });

  test('every operator is false on a missing path', () => {
    const values: Record<Operator, unknown> = {
      EQ: 'x',
      NEQ: 'x',
      IN: ['x'],
      NOT_IN: ['x'],
      GT: 0,
      GTE: 0,
      LT: 0,
      LTE: 0,
      MATCHES: '',
      CONTAINS: '',
      EXISTS: undefined,
    };
    for (const [op, value] of Object.entries(values) as Array<[Operator, unknown]>) {
      for (const path of [
        'args.missing',
        'args.files[9]',
        'args.sql.x',
        'github.pullRequest',
        'thresholds.nope',
      ]) {
        const c: Condition = op === 'EXISTS' ? { path, op } : { path, op, value };
        assert.equal(holds(c, d), false, `${path} ${op}`);
      }
      const noArgs = doc({ args: undefined });
      const c: Condition = op === 'EXISTS' ? { path: 'args.x', op } : { path: 'args.x', op, value };
      assert.equal(holds(c, noArgs), false, `absent args, ${op}`);
    }
  });
});

describe('paths', () => {
  test('[*] is existential', () => {
    check([
      ['args.files[*].path', 'EQ', 'docs/b.md', true],
      ['args.files[*].path', 'EQ', 'nope', false],
      ['args.files[*].size', 'GT', 1000, true],
      ['args.files[*].size', 'GT', 5000, false],
      ['args.files[*].path', 'MATCHES', '^src/', true],
      ['args.files[*].path', 'NEQ', 'src/a.ts', true],
      ['args.files[*].name', 'EXISTS', undefined, true],
      ['args.tags[*]', 'EQ', 'db', true],
      ['args.meta[*]', 'EQ', 'acme', false],
    ]);
    assert.equal(
      holds({ path: 'args.files[*].path', op: 'NEQ', value: 'x' }, doc({ args: { files: [] } })),
      false,
    );
  });

  test('bracket keys and indexes', () => {
    check([
      ['args["weird key"]', 'EQ', 'spaced', true],
      ["args['weird key']", 'EQ', 'spaced', true],
      ['args["sql"]', 'CONTAINS', 'DELETE', true],
      ['args.files[0].path', 'EQ', 'src/a.ts', true],
      ['args.files[2].path', 'EXISTS', undefined, false],
      ['args.meta["labels"].team', 'EQ', 'core', true],
      ['args.tags[3].k', 'EQ', 'v', true],
    ]);
  });

  test('bare args scans every string leaf, keys and values', () => {
    check([
      ['args', 'MATCHES', '^spaced$', true],
      ['args', 'MATCHES', '^weird key$', true],
      ['args', 'MATCHES', '^team$', true],
      ['args', 'MATCHES', '^core$', true],
      ['args', 'MATCHES', '^no-path$', true],
      ['args', 'EQ', 'prod', true],
      ['args', 'EQ', 7, false],
      ['args', 'CONTAINS', 'users', true],
      ['args', 'EXISTS', undefined, true],
      ['args', 'IN', ['acme', 'x'], true],
    ]);
    assert.equal(
      holds({ path: 'args', op: 'EXISTS' }, doc({ args: { n: 1, b: [true] } })),
      true,
      'keys are strings',
    );
    assert.equal(holds({ path: 'args', op: 'EXISTS' }, doc({ args: [1, 2] })), false);
    let deep: unknown = 'needle';
    for (let i = 0; i < 17; i += 1) deep = [deep];
    assert.equal(
      holds({ path: 'args', op: 'EQ', value: 'needle' }, doc({ args: deep })),
      false,
      'beyond depth 16',
    );
    deep = 'needle';
    for (let i = 0; i < 16; i += 1) deep = [deep];
    assert.equal(
      holds({ path: 'args', op: 'EQ', value: 'needle' }, doc({ args: deep })),
      true,
      'at depth 16',
    );
  });

  test('document roots', () => {
    check([
      ['targetSystem', 'EQ', 'acme/payments', true],
      ['intent.confidence', 'GTE', 0.9, true],
      ['risk.policyCompliant', 'EQ', true, true],
      ['risk.production', 'EQ', false, true],
      ['thresholds.modifiers.sensitive', 'EQ', 15, true],
      ['github.owner', 'EQ', 'acme', true],
    ]);
  });
});

describe('valuePath', () => {
  test('resolves the comparison value from the document', () => {
    const thresholds = {
      escalateAt: 60,
      lowConfidenceEscalateBelow: 0.5,
      allowed: ['agent', 'service'],
      label: 'core',
    };
    const dd = doc({
      thresholds,
      risk: { score: 75 },
      intent: { confidence: 0.4 },
      args: { team: 'core', n: 5 },
    });
    assert.equal(holds({ path: 'risk.score', op: 'GTE', valuePath: 'thresholds.escalateAt' }, dd), true);
    assert.equal(holds({ path: 'risk.score', op: 'LT', valuePath: 'thresholds.escalateAt' }, dd), false);
    assert.equal(
      holds({ path: 'intent.confidence', op: 'GTE', valuePath: 'thresholds.lowConfidenceEscalateBelow' }, dd),
      false,
    );
    assert.equal(holds({ path: 'actor.type', op: 'IN', valuePath: 'thresholds.allowed' }, dd), true);
    assert.equal(holds({ path: 'actor.type', op: 'NOT_IN', valuePath: 'thresholds.allowed' }, dd), false);
    assert.equal(holds({ path: 'args.team', op: 'EQ', valuePath: 'thresholds.label' }, dd), true);
    assert.equal(holds({ path: 'args.team', op: 'NEQ', valuePath: 'thresholds.label' }, dd), false);
    assert.equal(holds({ path: 'thresholds.allowed', op: 'CONTAINS', valuePath: 'actor.type' }, dd), true);
  });

  test('a missing valuePath makes every operator false, NEQ and NOT_IN included', () => {
    for (const op of ['EQ', 'NEQ', 'IN', 'NOT_IN', 'GT', 'GTE', 'LT', 'LTE', 'CONTAINS'] as const) {
      assert.equal(holds({ path: 'risk.score', op, valuePath: 'thresholds.nope' }, d), false, op);
    }
  });

  test('a valuePath of the wrong type is a mismatch', () => {
    const dd = doc({ thresholds: { word: 'x', num: 5 } });
    assert.equal(holds({ path: 'risk.score', op: 'GT', valuePath: 'thresholds.word' }, dd), false);
    assert.equal(holds({ path: 'risk.score', op: 'IN', valuePath: 'thresholds.num' }, dd), false);
    assert.equal(holds({ path: 'risk.score', op: 'NOT_IN', valuePath: 'thresholds.num' }, dd), false);
  });
});

describe('groups and not', () => {
  const T = { path: 'args.count', op: 'EQ', value: 3 } as const;
  const F = { path: 'args.count', op: 'EQ', value: 4 } as const;
  const M = { path: 'args.missing', op: 'EQ', value: 1 } as const;

  test('all, any, not and their combination', () => {
    assert.equal(holds({ all: [T, T] }, d), true);
    assert.equal(holds({ all: [T, F] }, d), false);
    assert.equal(holds({ any: [F, T] }, d), true);
    assert.equal(holds({ any: [F, F] }, d), false);
    assert.equal(holds({ not: F }, d), true);
    assert.equal(holds({ not: T }, d), false);
    assert.equal(holds({ all: [T], any: [F, T], not: F }, d), true, 'every present key must hold');
    assert.equal(holds({ all: [T], any: [F], not: F }, d), false);
    assert.equal(holds({ all: [T], any: [T], not: T }, d), false);
    assert.equal(holds({ any: [{ all: [F] }, { all: [T, { not: F }] }] }, d), true);
    assert.equal(holds({ not: { any: [F, { not: T }] } }, d), true);
    assert.equal(holds({ not: { not: T } }, d), true);
  });

  test('not over a condition on a missing path is true (documented consequence)', () => {
    assert.equal(holds({ not: M }, d), true);
    assert.equal(holds({ not: { path: 'args.missing', op: 'NEQ', value: 1 } }, d), true);
    assert.equal(holds({ not: { path: 'args.force', op: 'EQ', value: true } }, doc({ args: {} })), true);
    // To require presence, pair it with EXISTS.
    assert.equal(
      holds(
        {
          all: [{ path: 'args.force', op: 'EXISTS' }, { not: { path: 'args.force', op: 'EQ', value: true } }],
        },
        doc({ args: {} }),
      ),
      false,
    );
  });
});

describe('bindings', () => {
  const rule = (bindings: Record<string, string[]>) => policyOf([{ id: 'b', effect: 'ALLOW', bindings }]);
  const matches = (bindings: Record<string, string[]>, dd = d) =>
    evaluatePolicy(rule(bindings), dd, { at: 0, explain: false }).matched.length === 1;

  test('globs for actorIds, targetSystems and oiCodes; exact actorTypes', () => {
    assert.equal(matches({ actorIds: ['agent-*'] }), true);
    assert.equal(matches({ actorIds: ['agent-?'] }), true);
    assert.equal(matches({ actorIds: ['Agent-*'] }), false);
    assert.equal(matches({ actorIds: ['svc-*', 'agent-7'] }), true);
    assert.equal(matches({ targetSystems: ['acme/*'] }), true);
    assert.equal(matches({ targetSystems: ['*/payments'] }), true);
    assert.equal(matches({ targetSystems: ['acme/pay'] }), false);
    assert.equal(matches({ oiCodes: ['OI-1*'] }), true);
    assert.equal(matches({ oiCodes: ['OI-3*'] }), false);
    assert.equal(matches({ actorTypes: ['agent'] }), true);
    assert.equal(matches({ actorTypes: ['service', 'human'] }), false);
    assert.equal(
      matches({ actorTypes: ['agent'], targetSystems: ['other/*'] }),
      false,
      'every binding must hold',
    );
  });

  test('explanation names the first failing binding in a fixed order', () => {
    const policy = policyOf([
      {
        id: 'b',
        effect: 'DENY',
        bindings: { oiCodes: ['x'], targetSystems: ['y'], actorTypes: ['human'], actorIds: ['z'] },
      },
      { id: 'c', effect: 'DENY', bindings: { oiCodes: ['x'], targetSystems: ['y'], actorTypes: ['agent'] } },
      { id: 'e', effect: 'DENY', bindings: { oiCodes: ['x'], targetSystems: ['acme/*'] } },
    ]);
    const result = evaluatePolicy(policy, d, { at: 0, explain: true });
    assert.deepEqual(
      result.explanation?.map((e) => e.failed),
      [
        { kind: 'binding', binding: 'actorIds' },
        { kind: 'binding', binding: 'targetSystems' },
        { kind: 'binding', binding: 'oiCodes' },
      ],
    );
  });
});

describe('evaluatePolicy', () => {
  test('returns matched rules sorted by priority then id, with defaults', () => {
    const policy = policyOf([
      { id: 'z', effect: 'ALLOW', priority: 5 },
      { id: 'b', effect: 'DENY' },
      { id: 'a', effect: 'ESCALATE' },
      { id: 'B', effect: 'ESCALATE' },
      { id: 'never', effect: 'DENY', conditions: { all: [{ path: 'args.missing', op: 'EXISTS' }] } },
      { id: 'y', effect: 'REQUIRE_APPROVAL', priority: 5 },
    ]);
    const result = evaluatePolicy(policy, d, { at: 0, explain: false });
    assert.deepEqual(ids(result), ['y', 'z', 'B', 'a', 'b']);
    assert.deepEqual(result.matched[0], { id: 'y', effect: 'REQUIRE_APPROVAL', priority: 5 });
    assert.equal(result.matched[2]?.priority, 100);
    assert.equal('explanation' in result, false);
  });

  test('an empty policy matches nothing and explains nothing', () => {
    assert.deepEqual(evaluatePolicy(compilePolicy([]), d, { at: 0, explain: true }), {
      matched: [],
      explanation: [],
      steps: 0,
    });
  });

  test('the compiled policy holds RE2 programs, not RegExp', () => {
    const policy = policyOf([
      { id: 'm', effect: 'DENY', conditions: { all: [{ path: 'args', op: 'MATCHES', value: 'x' }] } },
    ]);
    const node = policy.rules[0]?.conditions;
    assert.ok(node?.kind === 'group');
    const first = node.all?.[0];
    assert.ok(first?.kind === 'cond');
    assert.ok(first.re instanceof EvaluationPattern);
    assert.equal(first.re.programSize, RE2JS.compile('x').programSize());
  });

  test('results are fresh objects: mutating them does not affect later evaluations', () => {
    const policy = policyOf([{ id: 'a', effect: 'ALLOW' }]);
    const first = evaluatePolicy(policy, d, { at: 0, explain: false });
    (first.matched[0] as { effect: string }).effect = 'DENY';
    assert.equal(evaluatePolicy(policy, d, { at: 0, explain: false }).matched[0]?.effect, 'ALLOW');
  });
});

describe('explanation', () => {
  test('lists every rule that did not match, in policy order, with the first failing condition', () => {
    const policy = policyOf([
      { id: 'ok', effect: 'ALLOW' },
      {
        id: 'two',
        effect: 'DENY',
        priority: 3,
        conditions: {
          all: [
            { path: 'args.count', op: 'EQ', value: 3 },
            { path: 'args.count', op: 'GT', value: 10 },
            { path: 'args.missing', op: 'EXISTS' },
          ],
        },
      },
      { id: 'miss', effect: 'ESCALATE', conditions: { all: [{ path: 'args.missing', op: 'EQ', value: 1 }] } },
    ]);
    const result = evaluatePolicy(policy, d, { at: 0, explain: true });
    assert.deepEqual(ids(result), ['ok']);
    assert.deepEqual(result.explanation, [
      {
        ruleId: 'two',
        effect: 'DENY',
        failed: { kind: 'condition', path: 'args.count', op: 'GT', reason: 'got 3' },
      },
      {
        ruleId: 'miss',
        effect: 'ESCALATE',
        failed: { kind: 'condition', path: 'args.missing', op: 'EQ', reason: 'path not found' },
      },
    ]);
  });

  test('reasons: mismatch, null, missing valuePath, several candidates, bare args, any, not', () => {
    const reason = (c: Parameters<typeof explain>[0], dd = d): string => {
      const entry = explain(c, dd);
      assert.ok(entry !== undefined, 'expected the rule not to match');
      assert.equal(entry.failed.kind, 'condition');
      return entry.failed.kind === 'condition' ? entry.failed.reason : '';
    };
    assert.match(
      reason({ path: 'args.sql', op: 'GT', value: 1 }),
      /^type mismatch: GT needs numbers, got string "DELETE/,
    );
    assert.match(reason({ path: 'args.count', op: 'IN', value: ['a'] }), /^type mismatch/);
    assert.equal(reason({ path: 'args.nothing', op: 'EXISTS' }), 'value is null');
    assert.equal(
      reason({ path: 'risk.score', op: 'GT', valuePath: 'thresholds.nope' }),
      'valuePath thresholds.nope not found',
    );
    assert.equal(
      reason({ path: 'args.files[*].size', op: 'GT', value: 1e6 }),
      'none of 2 values satisfies GT',
    );
    assert.equal(reason({ path: 'args.tags[*]', op: 'GT', value: 1e6 }), 'none of 4 values satisfies GT');
    assert.equal(
      reason({ path: 'args.files[*].path', op: 'GT', value: 1 }),
      'type mismatch: none of 2 values fits GT',
    );
    assert.equal(reason({ path: 'args', op: 'EQ', value: 'x' }, doc({ args: { n: [1] } })), 'got "n"');
    assert.equal(reason({ path: 'args', op: 'EXISTS' }, doc({ args: [1] })), 'args has no string leaf');
    assert.equal(
      reason({
        any: [
          { path: 'args.count', op: 'EQ', value: 4 },
          { path: 'args.count', op: 'EQ', value: 5 },
        ],
      }),
      'got 3 (the other "any" entry fails too)',
    );
    const negated = explain(
      {
        not: {
          any: [
            { path: 'args.count', op: 'EQ', value: 4 },
            { path: 'args.sql', op: 'EXISTS' },
          ],
        },
      },
      d,
    );
    assert.deepEqual(negated?.failed, {
      kind: 'condition',
      path: 'args.sql',
      op: 'EXISTS',
      reason: 'holds, negated by "not"',
    });
    const doubly = explain({ not: { not: { path: 'args.count', op: 'EQ', value: 4 } } }, d);
    assert.deepEqual(doubly?.failed, { kind: 'condition', path: 'args.count', op: 'EQ', reason: 'got 3' });
  });

  test('long values are excerpted', () => {
    const long = 'x'.repeat(500);
    const entry = explain({ path: 'args.s', op: 'EQ', value: 'y' }, doc({ args: { s: long } }));
    assert.ok(entry?.failed.kind === 'condition');
    assert.ok(entry.failed.reason.length < 100);
    assert.ok(entry.failed.reason.endsWith('…'));
  });
});

describe('deepEqual', () => {
  test('JSON equality', () => {
    assert.equal(deepEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }), true);
    assert.equal(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
    assert.equal(deepEqual({ a: 1 }, { a: 1, b: undefined }), false);
    assert.equal(deepEqual([1], { 0: 1 }), false);
    assert.equal(deepEqual([], []), true);
    assert.equal(deepEqual(null, {}), false);
    assert.equal(deepEqual('1', 1), false);
  });
});
