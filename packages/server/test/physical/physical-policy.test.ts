import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors/app-error.js';
import {
  compilePhysicalPolicy,
  defaultCompiledPolicy,
} from '../../src/physical/domain/compile-physical-policy.js';
import { DEFAULT_PHYSICAL_POLICY } from '../../src/physical/domain/default-physical-policy.js';
import { BUILT_IN_CLAUSE_IDS, MAX_CLAUSES } from '../../src/physical/domain/physical-clause.js';
import { validatePhysicalPolicy } from '../../src/physical/domain/validate-physical-policy.js';

function issuesOf(input: unknown): Array<{ path: string; message: string }> {
  const result = validatePhysicalPolicy(input);
  assert.equal(result.ok, false, 'expected the policy to be refused');
  return result.ok ? [] : result.issues;
}

function clause(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'c1',
    effect: 'deny',
    when: [{ predicate: 'safety/door-open', op: 'eq', value: true }],
    safeDefault: 'stop',
    ...overrides,
  };
}

describe('default physical policy', () => {
  test('has the contract’s clause ids, in order, and validates as an upload would', () => {
    assert.deepEqual(
      DEFAULT_PHYSICAL_POLICY.clauses.map((c) => c.id),
      [
        'deny-on-emergency-stop',
        'deny-on-light-curtain-breach',
        'deny-on-human-in-cell',
        'escalate-on-low-confidence',
        'allow-when-clear',
      ],
    );
    const result = validatePhysicalPolicy(structuredClone(DEFAULT_PHYSICAL_POLICY));
    assert.ok(result.ok);
    assert.deepEqual(result.policy, DEFAULT_PHYSICAL_POLICY);
  });

  test('deny clauses read the contract’s predicates with a 1000 ms age limit and cite OI-29NN', () => {
    const byId = new Map(DEFAULT_PHYSICAL_POLICY.clauses.map((c) => [c.id, c]));
    const expect: Array<[string, string, string, string, string[] | undefined]> = [
      ['deny-on-emergency-stop', 'safety/emergency-stop', 'OI-2901', 'stop', undefined],
      [
        'deny-on-light-curtain-breach',
        'safety/light-curtain-breached',
        'OI-2903',
        'stop',
        ['robot', 'cobot'],
      ],
      ['deny-on-human-in-cell', 'cell/human-present', 'OI-2903', 'hold-position', ['robot', 'cobot']],
    ];
    for (const [id, predicate, citation, safeDefault, kinds] of expect) {
      const c = byId.get(id);
      assert.ok(c);
      assert.equal(c.effect, 'deny');
      assert.equal(c.when?.[0]?.predicate, predicate);
      assert.equal(c.maxStateAgeMs, 1000);
      assert.deepEqual(c.citations, [citation]);
      assert.equal(c.safeDefault, safeDefault);
      assert.deepEqual(c.appliesTo?.actorKinds, kinds);
    }
    const low = byId.get('escalate-on-low-confidence');
    assert.deepEqual(low?.when, [{ predicate: 'classifier/confidence', op: 'lt', value: 0.6 }]);
    assert.equal(low?.safeDefault, 'request-operator');
    assert.equal(byId.get('allow-when-clear')?.effect, 'allow');
  });

  test('is frozen, so a caller cannot change the shared default', () => {
    assert.throws(() => {
      (DEFAULT_PHYSICAL_POLICY.clauses as unknown[]).push({});
    }, TypeError);
    assert.equal(defaultCompiledPolicy(), defaultCompiledPolicy());
  });
});

describe('physical policy validation: shapes', () => {
  test('accepts a full clause and returns only known fields', () => {
    const result = validatePhysicalPolicy({
      description: 'cell 3',
      clauses: [
        clause({
          description: 'door interlock',
          appliesTo: { oiCodes: ['OI-15*'], actorKinds: ['cobot'], schemas: ['robot.*'] },
          requireSafetyRated: true,
          maxStateAgeMs: 500,
          citations: ['OI-2903'],
        }),
        {
          id: 'slow-mode',
          effect: 'escalate',
          when: [{ predicate: 'cell/speed-mm-s', op: 'gt', value: 250 }],
          safeDefault: 'request-operator',
        },
        {
          id: 'zone',
          effect: 'deny',
          when: [{ predicate: 'nav/zone', op: 'in', value: ['a', 'b'] }],
          safeDefault: 'stop',
        },
        {
          id: 'gap',
          effect: 'audit-gap',
          when: [{ predicate: 'recorder/heartbeat', op: 'absent' }],
          maxStateAgeMs: 5000,
          safeDefault: 'hold-position',
        },
        { id: 'ok', effect: 'allow', safeDefault: 'stop' },
      ],
    });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.policy.clauses.length, 5);
    assert.equal(result.policy.description, 'cell 3');
  });

  const CASES: Array<[string, unknown, string]> = [
    ['not an object', 'clauses', ''],
    ['clauses missing', {}, 'clauses'],
    ['clauses not an array', { clauses: {} }, 'clauses'],
    ['unknown top-level field', { clauses: [], rules: [] }, 'rules'],
    ['clause not an object', { clauses: [7] }, 'clauses[0]'],
    ['id missing', { clauses: [clause({ id: undefined })] }, 'clauses[0].id'],
    ['id with a space', { clauses: [clause({ id: 'a b' })] }, 'clauses[0].id'],
    ['id of a built-in', { clauses: [clause({ id: 'kill-switch' })] }, 'clauses[0].id'],
    ['id default-deny', { clauses: [clause({ id: 'default-deny' })] }, 'clauses[0].id'],
    ['duplicate id', { clauses: [clause(), clause()] }, 'clauses[1].id'],
    ['unknown effect', { clauses: [clause({ effect: 'DENY' })] }, 'clauses[0].effect'],
    ['unknown safeDefault', { clauses: [clause({ safeDefault: 'panic' })] }, 'clauses[0].safeDefault'],
    ['safeDefault missing', { clauses: [clause({ safeDefault: undefined })] }, 'clauses[0].safeDefault'],
    ['unknown clause field', { clauses: [clause({ priority: 3 })] }, 'clauses[0].priority'],
    [
      'requireSafetyRated not boolean',
      { clauses: [clause({ requireSafetyRated: 'yes' })] },
      'clauses[0].requireSafetyRated',
    ],
    ['maxStateAgeMs zero', { clauses: [clause({ maxStateAgeMs: 0 })] }, 'clauses[0].maxStateAgeMs'],
    ['maxStateAgeMs fractional', { clauses: [clause({ maxStateAgeMs: 1.5 })] }, 'clauses[0].maxStateAgeMs'],
    ['appliesTo not an object', { clauses: [clause({ appliesTo: ['OI-1502'] })] }, 'clauses[0].appliesTo'],
    [
      'appliesTo unknown key',
      { clauses: [clause({ appliesTo: { actors: ['x'] } })] },
      'clauses[0].appliesTo.actors',
    ],
    [
      'appliesTo empty list',
      { clauses: [clause({ appliesTo: { actorKinds: [] } })] },
      'clauses[0].appliesTo.actorKinds',
    ],
    [
      'unknown actor kind',
      { clauses: [clause({ appliesTo: { actorKinds: ['robot', 'tank'] } })] },
      'clauses[0].appliesTo.actorKinds[1]',
    ],
    [
      'bad oiCodes entry',
      { clauses: [clause({ appliesTo: { oiCodes: ['pick'] } })] },
      'clauses[0].appliesTo.oiCodes[0]',
    ],
    [
      'schema glob with control char',
      { clauses: [clause({ appliesTo: { schemas: ['a\nb'] } })] },
      'clauses[0].appliesTo.schemas[0]',
    ],
    [
      'when not an array',
      { clauses: [clause({ when: { predicate: 'x', op: 'eq', value: 1 } })] },
      'clauses[0].when',
    ],
    [
      'condition unknown key',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'eq', value: 1, path: 'y' }] })] },
      'clauses[0].when[0].path',
    ],
    [
      'predicate with spaces',
      { clauses: [clause({ when: [{ predicate: 'door open', op: 'eq', value: true }] })] },
      'clauses[0].when[0].predicate',
    ],
    [
      'predicate with empty segment',
      { clauses: [clause({ when: [{ predicate: 'safety//stop', op: 'eq', value: true }] })] },
      'clauses[0].when[0].predicate',
    ],
    [
      'unknown op',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'matches', value: 'a' }] })] },
      'clauses[0].when[0].op',
    ],
    [
      'lt with a string',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'lt', value: '3' }] })] },
      'clauses[0].when[0].value',
    ],
    [
      'eq with an object',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'eq', value: { a: 1 } }] })] },
      'clauses[0].when[0].value',
    ],
    [
      'eq without value',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'eq' }] })] },
      'clauses[0].when[0].value',
    ],
    [
      'in with an empty list',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'in', value: [] }] })] },
      'clauses[0].when[0].value',
    ],
    [
      'present with a value',
      { clauses: [clause({ when: [{ predicate: 'x', op: 'present', value: true }] })] },
      'clauses[0].when[0].value',
    ],
    [
      'reserved number compared with a string',
      { clauses: [clause({ when: [{ predicate: 'classifier/confidence', op: 'eq', value: 'high' }] })] },
      'clauses[0].when[0].value',
    ],
    [
      'reserved boolean ordered',
      { clauses: [clause({ when: [{ predicate: 'classifier/failClosed', op: 'gt', value: 0 }] })] },
      'clauses[0].when[0].op',
    ],
    ['citation not OI-29NN', { clauses: [clause({ citations: ['OI-1502'] })] }, 'clauses[0].citations[0]'],
    [
      'citation of an unknown safety code',
      { clauses: [clause({ citations: ['OI-2999'] })] },
      'clauses[0].citations[0]',
    ],
  ];
  for (const [name, input, path] of CASES) {
    test(`refuses: ${name} (at ${path || 'the document'})`, () => {
      const issues = issuesOf(input);
      assert.ok(
        issues.some((issue) => issue.path === path),
        `expected an issue at ${path}, got ${JSON.stringify(issues)}`,
      );
      for (const issue of issues) assert.ok(issue.message.length > 0);
    });
  }

  test('messages name the clause by id, or by index when it has none, and the field', () => {
    const [named] = issuesOf({ clauses: [clause({ id: 'door', safeDefault: 'panic' })] });
    assert.match(named?.message ?? '', /^clause "door": safeDefault: /);
    const [anonymous] = issuesOf({ clauses: [clause({ id: 42 })] });
    assert.match(anonymous?.message ?? '', /^clauses\[0\]: id: /);
  });

  test(`refuses more than ${MAX_CLAUSES} clauses`, () => {
    const clauses = Array.from({ length: MAX_CLAUSES + 1 }, (_, i) => clause({ id: `c${i}` }));
    assert.deepEqual(
      issuesOf({ clauses }).map((i) => i.path),
      ['clauses'],
    );
    assert.ok(validatePhysicalPolicy({ clauses: clauses.slice(0, MAX_CLAUSES) }).ok);
  });

  test('caps the number of reported issues', () => {
    const clauses = Array.from({ length: 500 }, () => ({ id: 'x y' }));
    assert.equal(issuesOf({ clauses }).length, 100);
  });
});

describe('physical policy validation: safeDefault "ignore"', () => {
  const refused: Array<[string, Record<string, unknown>]> = [
    ['a clause without appliesTo.oiCodes (it covers every code)', { effect: 'escalate' }],
    ['a glob over the safety domain', { appliesTo: { oiCodes: ['OI-29*'] } }],
    ['a wide glob that reaches OI-29NN', { appliesTo: { oiCodes: ['OI-2*'] } }],
    ['an exact safety category among others', { appliesTo: { oiCodes: ['OI-1502', 'OI-2905'] } }],
    ['the safety domain code', { appliesTo: { oiCodes: ['OI-2900'] } }],
    ['a citation', { appliesTo: { oiCodes: ['OI-1502'] }, citations: ['OI-2906'] }],
    [
      'a goal/oiCode condition on a safety code',
      {
        appliesTo: { oiCodes: ['OI-1*'] },
        when: [{ predicate: 'goal/oiCode', op: 'in', value: ['OI-1701', 'OI-2901'] }],
      },
    ],
  ];
  for (const [name, extra] of refused) {
    test(`refused on ${name}`, () => {
      const issues = issuesOf({ clauses: [clause({ safeDefault: 'ignore', ...extra })] });
      const issue = issues.find((i) => i.path === 'clauses[0].safeDefault');
      assert.ok(issue, JSON.stringify(issues));
      assert.match(issue.message, /"ignore" is refused .*OI-29xx/);
    });
  }

  test('accepted on a clause restricted to non-safety codes', () => {
    const result = validatePhysicalPolicy({
      clauses: [
        clause({ safeDefault: 'ignore', effect: 'deny', appliesTo: { oiCodes: ['OI-17*', 'OI-2306'] } }),
      ],
    });
    assert.ok(result.ok, JSON.stringify(result));
  });
});

describe('compilePhysicalPolicy', () => {
  test('throws the 400 validation error with issue paths under the body field', () => {
    try {
      compilePhysicalPolicy({ clauses: [clause({ safeDefault: 'ignore' })] });
      assert.fail('expected a validation error');
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.equal(error.status, 400);
      const issues = (error.details?.issues ?? []) as Array<{ path: string }>;
      assert.deepEqual(
        issues.map((i) => i.path),
        ['/policy/clauses/0/safeDefault'],
      );
    }
    assert.throws(
      () => compilePhysicalPolicy(null, { pathPrefix: '' }),
      (error: unknown) => error instanceof AppError && JSON.stringify(error.details).includes('"path":"/"'),
    );
  });

  test('compiles defaults: requireSafetyRated true for deny and audit-gap, false otherwise', () => {
    const policy = compilePhysicalPolicy({
      clauses: ['deny', 'audit-gap', 'escalate', 'allow'].map((effect) => clause({ id: effect, effect })),
    });
    assert.deepEqual(
      policy.clauses.map((c) => c.requireSafetyRated),
      [true, true, false, false],
    );
    const explicit = compilePhysicalPolicy({ clauses: [clause({ requireSafetyRated: false })] });
    assert.equal(explicit.clauses[0]?.requireSafetyRated, false);
  });

  test('built-in clause ids are the contract’s', () => {
    assert.deepEqual(Object.values(BUILT_IN_CLAUSE_IDS), [
      'kill-switch',
      'stale-goal',
      'classifier-fail-closed',
      'audit-gap-on-chain-break',
    ]);
  });
});
