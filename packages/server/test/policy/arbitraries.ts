/**
 * fast-check generators for policies and evaluation documents over a small vocabulary of paths
 * and values, so that random conditions match often and every branch of the semantics is reached.
 */
import fc from 'fast-check';
import type {
  Bindings,
  Condition,
  ConditionGroup,
  Effect,
  EvaluationDocument,
  Rule,
} from '../../src/policy/rule.js';

export const SCALARS = [
  'a',
  'b',
  'main',
  'x y',
  'DROP',
  'src/a.ts',
  'read',
  'write',
  0,
  1,
  5,
  50,
  60,
  0.5,
  true,
  false,
  null,
];
export const NUMBERS = [0, 1, 5, 50, 60, 0.5, 100, -1];

/** Fixed test literals whose meaning is the same under RE2 and JavaScript RegExp. */
export const SAFE_PATTERNS = [
  '^a',
  'a|b',
  '\\d+',
  'y$',
  '(?:x|y) y',
  'DROP',
  '^src/',
  '',
  '[A-Z]+',
  'ma.n',
  '^$',
];

export const CONDITION_PATHS = [
  'risk.score',
  'risk.operation_type',
  'risk.production',
  'intent.confidence',
  'intent.oiCode',
  'actor.type',
  'actor.id',
  'targetSystem',
  'proposedAction',
  'args',
  'args.sql',
  'args.n',
  'args.flag',
  'args.tags',
  'args.tags[*]',
  'args.tags[0]',
  'args.files[*].path',
  'args.files[0].path',
  'args.files[*].size',
  'args["x y"]',
  'args.obj',
  'args.obj.k',
  'args.obj[*]',
  'args.nul',
  'args.missing',
  'github',
  'github.ref',
  'thresholds.escalateAt',
  'thresholds.list',
];

export const VALUE_PATHS = [
  'thresholds.escalateAt',
  'thresholds.list',
  'thresholds.missing',
  'args.n',
  'args.sql',
  'args.tags',
  'args.obj',
  'args["x y"]',
  'risk.operation_type',
  'actor.type',
  'github.ref',
];

export const GLOBS = {
  actorIds: ['agent-*', '*', 'a', 'svc-?', '*-1', 'agent-1', 'agent-1*'],
  targetSystems: ['acme/*', '*/x', 'acme/payments', '*', 'a?me/*'],
  oiCodes: ['OI-1*', 'OI-?0?', 'OI-305', '*', 'OI-10?', 'OI-305*'],
};
export const ACTOR_TYPE_VALUES = ['service', 'agent', 'human', 'workflow'];

const scalar = fc.constantFrom(...SCALARS);
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constantFrom('a', 'b') }) },
);

const conditionArb: fc.Arbitrary<Condition> = fc.oneof(
  // EXISTS
  fc.record({ path: fc.constantFrom(...CONDITION_PATHS), op: fc.constant('EXISTS' as const) }),
  // EQ / NEQ / CONTAINS with any JSON value
  fc.record({
    path: fc.constantFrom(...CONDITION_PATHS),
    op: fc.constantFrom('EQ' as const, 'NEQ' as const, 'CONTAINS' as const),
    value: jsonValue,
  }),
  // IN / NOT_IN with a literal list
  fc.record({
    path: fc.constantFrom(...CONDITION_PATHS),
    op: fc.constantFrom('IN' as const, 'NOT_IN' as const),
    value: fc.array(jsonValue, { minLength: 1, maxLength: 4 }),
  }),
  // numeric comparisons
  fc.record({
    path: fc.constantFrom(...CONDITION_PATHS),
    op: fc.constantFrom('GT' as const, 'GTE' as const, 'LT' as const, 'LTE' as const),
    value: fc.constantFrom(...NUMBERS),
  }),
  // MATCHES with a fixed safe pattern
  fc.record({
    path: fc.constantFrom(...CONDITION_PATHS),
    op: fc.constant('MATCHES' as const),
    value: fc.constantFrom(...SAFE_PATTERNS),
  }),
  // valuePath, any operator but MATCHES / EXISTS
  fc.record({
    path: fc.constantFrom(...CONDITION_PATHS),
    op: fc.constantFrom(
      'EQ' as const,
      'NEQ' as const,
      'IN' as const,
      'NOT_IN' as const,
      'GT' as const,
      'GTE' as const,
      'LT' as const,
      'LTE' as const,
      'CONTAINS' as const,
    ),
    valuePath: fc.constantFrom(...VALUE_PATHS),
  }),
);

function groupArb(depth: number): fc.Arbitrary<ConditionGroup> {
  const node: fc.Arbitrary<Condition | ConditionGroup> =
    depth <= 1
      ? conditionArb
      : fc.oneof({ weight: 3, arbitrary: conditionArb }, { weight: 1, arbitrary: groupArb(depth - 1) });
  return fc
    .record(
      {
        all: fc.array(node, { minLength: 1, maxLength: 3 }),
        any: fc.array(node, { minLength: 1, maxLength: 3 }),
        not: node,
      },
      { requiredKeys: [] },
    )
    .filter((g) => g.all !== undefined || g.any !== undefined || g.not !== undefined);
}

export const bindingsArb: fc.Arbitrary<Bindings> = fc.record(
  {
    actorIds: fc.subarray(GLOBS.actorIds, { minLength: 1, maxLength: 2 }),
    actorTypes: fc.subarray(ACTOR_TYPE_VALUES, { minLength: 1, maxLength: 3 }),
    targetSystems: fc.subarray(GLOBS.targetSystems, { minLength: 1, maxLength: 2 }),
    oiCodes: fc.subarray(GLOBS.oiCodes, { minLength: 1, maxLength: 2 }),
  },
  { requiredKeys: [] },
);

export const effectArb: fc.Arbitrary<Effect> = fc.constantFrom(
  'ALLOW',
  'DENY',
  'REQUIRE_APPROVAL',
  'ESCALATE',
);

export function ruleArb(id: fc.Arbitrary<string>): fc.Arbitrary<Rule> {
  return fc
    .record(
      {
        id,
        effect: effectArb,
        priority: fc.constantFrom(2, 3, 50, 100, 10_000),
        bindings: fc.option(bindingsArb, { nil: undefined, freq: 2 }),
        conditions: fc.option(groupArb(3), { nil: undefined, freq: 5 }),
      },
      { requiredKeys: ['id', 'effect'] },
    )
    .map((rule) => {
      const out: Rule = { id: rule.id, effect: rule.effect };
      if (rule.priority !== undefined) out.priority = rule.priority;
      if (rule.bindings !== undefined && Object.keys(rule.bindings).length > 0) out.bindings = rule.bindings;
      if (rule.conditions !== undefined) out.conditions = rule.conditions;
      return out;
    });
}

const ruleIdArb = fc.stringMatching(/^[a-zA-Z0-9_-]{1,3}$/);

export const rulesArb: fc.Arbitrary<Rule[]> = fc
  .uniqueArray(ruleIdArb, { minLength: 0, maxLength: 8 })
  .chain((ids) =>
    ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map((id) => ruleArb(fc.constant(id)))),
  );

const argsArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        sql: fc.constantFrom('DROP TABLE a', 'select', 'a', 'b', 'main', 'x y', 'main y'),
        n: fc.constantFrom(0, 1, 5, 50, 60, '5', null),
        flag: fc.boolean(),
        tags: fc.array(scalar, { maxLength: 4 }),
        files: fc.array(
          fc.record(
            { path: fc.constantFrom('src/a.ts', 'b', 'a', 'DROP'), size: fc.constantFrom(1, 5, 50, 'big') },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        'x y': fc.constantFrom('a', 5, null, ['a'], 'read'),
        obj: fc.oneof(fc.record({ k: fc.constantFrom('a', 'b', 'main') }), fc.constant('a')),
        nul: fc.constant(null),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
);

export const docArb: fc.Arbitrary<EvaluationDocument> = fc.record({
  actor: fc.record({
    id: fc.constantFrom('agent-1', 'svc-2', 'a', 'agent-x'),
    type: fc.constantFrom(...ACTOR_TYPE_VALUES),
  }),
  targetSystem: fc.constantFrom('acme/payments', 'acme/infra', 'other/x'),
  proposedAction: fc.constantFrom('list pull requests', 'DROP TABLE x', 'main', 'a b'),
  args: argsArb,
  intent: fc.record({
    oiCode: fc.constantFrom('OI-101', 'OI-305', 'OI-1x', 'OI-100'),
    confidence: fc.constantFrom(0.3, 0.5, 0.9),
  }),
  risk: fc.record({
    score: fc.constantFrom(0, 5, 50, 60, 100),
    operation_type: fc.constantFrom('read' as const, 'write' as const),
    privileged: fc.boolean(),
    production: fc.boolean(),
    sensitive: fc.boolean(),
    policyCompliant: fc.boolean(),
  }),
  github: fc.option(fc.record({ owner: fc.constant('acme'), ref: fc.constantFrom('main', 'dev', null) }), {
    nil: null,
  }),
  thresholds: fc.record(
    { escalateAt: fc.constantFrom(5, 60), list: fc.constantFrom(['a', 5], ['read', 'write'], []) },
    { requiredKeys: [] },
  ),
});
