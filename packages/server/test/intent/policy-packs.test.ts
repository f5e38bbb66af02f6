import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RE2JS } from 're2js';
import { interpret } from '../../src/intent/domain/interpret.js';
import { riskScore } from '../../src/intent/domain/risk-score.js';
import { DEFAULT_THRESHOLDS } from '../../src/intent/domain/thresholds.js';
import {
  getPack,
  PACK_RULE_SEPARATOR,
  POLICY_PACKS,
  packIdOfRule,
  packRules,
  starterRules,
} from '../../src/policy/packs.js';
import {
  ACTOR_TYPES,
  type Condition,
  type ConditionGroup,
  EFFECTS,
  type EvaluationDocument,
  OPERATORS,
  type Rule,
  SEVERITY,
} from '../../src/policy/rule.js';

/** The evaluation document's roots and, for the fixed-shape ones, their fields (contract §4.5). */
const ROOTS = ['actor', 'targetSystem', 'proposedAction', 'args', 'intent', 'risk', 'github', 'thresholds'];
const FIELDS: Record<string, string[]> = {
  actor: ['id', 'type'],
  intent: ['oiCode', 'confidence'],
  risk: ['score', 'operation_type', 'privileged', 'production', 'sensitive', 'policyCompliant'],
  github: ['owner', 'repo', 'ref', 'pullRequest', 'path'],
  thresholds: [
    'escalateAt',
    'denyAt',
    'modifiers',
    'lowConfidenceEscalateBelow',
    'approvalTtlSeconds',
    'tokenTtlSeconds',
  ],
};

type Node = Condition | ConditionGroup;
const isCondition = (node: Node): node is Condition => 'op' in node;

function conditionsOf(node: Node | undefined): Condition[] {
  if (node === undefined) return [];
  if (isCondition(node)) return [node];
  return [...(node.all ?? []), ...(node.any ?? []), ...(node.not ? [node.not] : [])].flatMap(conditionsOf);
}

function checkPath(path: string, where: string): void {
  const match = /^([A-Za-z_]+)(?:\.([A-Za-z_]+))?/.exec(path);
  assert.ok(match, `${where}: path ${path}`);
  const [, root, field] = match;
  assert.ok(root !== undefined && ROOTS.includes(root), `${where}: root of ${path}`);
  const fields = FIELDS[root];
  if (fields && field !== undefined) assert.ok(fields.includes(field), `${where}: field of ${path}`);
  // Dot segments and [n] / [*] / ["key"] brackets only.
  assert.match(
    path,
    /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[(\d+|\*|"[^"]*")\])*$/,
    `${where}: ${path}`,
  );
}

/**
 * A small reference reading of §4.5 conditions, enough to check what the packs mean: dot paths with
 * `[*]`, bare `args` scanning string leaves, absence failing every operator.
 */
function resolve(document: EvaluationDocument, path: string): unknown[] {
  const segments = path.replace(/\[\*\]/g, '.*').split('.');
  let values: unknown[] = [document];
  for (const segment of segments) {
    values = values.flatMap((value) => {
      if (segment === '*') return Array.isArray(value) ? value : [];
      if (typeof value !== 'object' || value === null) return [];
      const next = (value as Record<string, unknown>)[segment];
      return next === undefined ? [] : [next];
    });
  }
  return values;
}

function stringLeaves(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth >= 16 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => stringLeaves(item, depth + 1));
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringLeaves(item, depth + 1)]);
}

function holdsOne(op: string, actual: unknown, expected: unknown): boolean {
  switch (op) {
    case 'EQ':
      return actual === expected;
    case 'NEQ':
      return actual !== expected;
    case 'IN':
      return Array.isArray(expected) && expected.includes(actual);
    case 'NOT_IN':
      return Array.isArray(expected) && !expected.includes(actual);
    case 'GT':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case 'GTE':
      return typeof actual === 'number' && typeof expected === 'number' && actual >= expected;
    case 'LT':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
    case 'LTE':
      return typeof actual === 'number' && typeof expected === 'number' && actual <= expected;
    case 'MATCHES':
      return (
        typeof actual === 'string' && typeof expected === 'string' && RE2JS.compile(expected).test(actual)
      );
    case 'CONTAINS':
      return (
        (typeof actual === 'string' && typeof expected === 'string' && actual.includes(expected)) ||
        (Array.isArray(actual) && actual.includes(expected))
      );
    default:
      return false;
  }
}

function holds(node: Node, document: EvaluationDocument): boolean {
  if (!isCondition(node)) {
    if (node.all && !node.all.every((child) => holds(child, document))) return false;
    if (node.any && !node.any.some((child) => holds(child, document))) return false;
    if (node.not && holds(node.not, document)) return false;
    return true;
  }
  const actuals = node.path === 'args' ? stringLeaves(document.args) : resolve(document, node.path);
  if (node.op === 'EXISTS') return actuals.length > 0;
  const expected = node.valuePath === undefined ? node.value : resolve(document, node.valuePath)[0];
  if (node.valuePath !== undefined && expected === undefined) return false;
  return actuals.some((actual) => holdsOne(node.op, actual, expected));
}

const globMatches = (glob: string, value: string): boolean =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    's',
  ).test(value);

function matches(rule: Rule, document: EvaluationDocument): boolean {
  const b = rule.bindings;
  if (b?.actorTypes && !b.actorTypes.includes(document.actor.type)) return false;
  if (b?.actorIds && !b.actorIds.some((glob) => globMatches(glob, document.actor.id))) return false;
  if (b?.targetSystems && !b.targetSystems.some((glob) => globMatches(glob, document.targetSystem)))
    return false;
  if (b?.oiCodes && !b.oiCodes.some((glob) => globMatches(glob, document.intent.oiCode))) return false;
  return rule.conditions === undefined || holds(rule.conditions, document);
}

interface Scenario {
  action: string;
  args?: Record<string, unknown>;
  actorType?: string;
  base?: number;
  privileged?: boolean;
  production?: boolean;
  sensitive?: boolean;
  policyCompliant?: boolean;
  github?: Record<string, unknown>;
}

function documentFor(s: Scenario): EvaluationDocument {
  const { primary } = interpret(s.action, s.args);
  const flags = {
    privileged: s.privileged ?? false,
    production: s.production ?? false,
    sensitive: s.sensitive ?? false,
  };
  const score = riskScore({
    baseRiskScore: s.base ?? 10,
    requiresPrivilegedAccess: flags.privileged,
    touchesProduction: flags.production,
    containsSensitiveData: flags.sensitive,
  });
  return {
    actor: { id: 'actor-1', type: s.actorType ?? 'service' },
    targetSystem: 'octo-org/widgets',
    proposedAction: s.action,
    args: s.args ?? {},
    intent: { oiCode: primary.oiCode, confidence: primary.confidence },
    risk: {
      score,
      operation_type: primary.operationType,
      ...flags,
      policyCompliant: s.policyCompliant ?? true,
    },
    github: s.github ? { owner: 'octo-org', repo: 'widgets', ...s.github } : null,
    thresholds: { ...DEFAULT_THRESHOLDS },
  };
}

/** Ids of the rules of `rules` that match, sorted. */
function matching(rules: Rule[], s: Scenario): string[] {
  const document = documentFor(s);
  return rules
    .filter((rule) => matches(rule, document))
    .map((rule) => rule.id)
    .sort();
}

/** The most severe effect among matching rules, or DENY by default. */
function outcome(rules: Rule[], s: Scenario): string {
  const document = documentFor(s);
  const effects = rules.filter((rule) => matches(rule, document)).map((rule) => rule.effect);
  if (effects.length === 0) return 'DENY (default)';
  return effects.reduce((worst, effect) => (SEVERITY[effect] > SEVERITY[worst] ? effect : worst));
}

describe('policy packs: catalog', () => {
  it('lists starter, github-safe-merge, production-change-control, sensitive-data-guard and mcp-basics', () => {
    assert.deepEqual(
      POLICY_PACKS.map((pack) => pack.id),
      ['starter', 'github-safe-merge', 'production-change-control', 'sensitive-data-guard', 'mcp-basics'],
    );
    for (const pack of POLICY_PACKS) {
      assert.deepEqual(Object.keys(pack).sort(), ['description', 'id', 'name', 'rules', 'version']);
      assert.match(pack.id, /^[a-z][a-z0-9-]*$/);
      assert.match(pack.version, /^\d+\.\d+\.\d+$/);
      assert.ok(pack.name.length > 0 && pack.description.length > 0);
      assert.ok(pack.rules.length > 0);
      assert.equal(getPack(pack.id), pack);
    }
    assert.equal(getPack('nope'), undefined);
  });

  it('is frozen, and packRules hands out independent copies', () => {
    const starter = getPack('starter');
    assert.ok(starter && Object.isFrozen(starter) && Object.isFrozen(starter.rules[0]?.conditions?.all));
    const copy = packRules(starter);
    copy[0]?.conditions?.all?.push({ path: 'risk.score', op: 'LT', value: 0 });
    assert.equal(starter.rules[0]?.conditions?.all?.length, 7);
  });

  it('prefixes installed rule ids with the pack id', () => {
    for (const pack of POLICY_PACKS) {
      const installed = packRules(pack);
      assert.deepEqual(
        installed.map((rule) => rule.id),
        pack.rules.map((rule) => `${pack.id}${PACK_RULE_SEPARATOR}${rule.id}`),
      );
      assert.deepEqual(
        installed.map(({ id: _id, ...rest }) => rest),
        pack.rules.map(({ id: _id, ...rest }) => rest),
      );
      for (const rule of installed) assert.equal(packIdOfRule(rule.id), pack.id);
    }
    assert.equal(packIdOfRule('custom-rule'), undefined);
    assert.equal(packIdOfRule('other/rule'), undefined);
    assert.equal(packIdOfRule('/rule'), undefined);
    assert.equal(packIdOfRule('catastrophic-floor'), undefined);
  });
});

describe('policy packs: structure', () => {
  for (const pack of POLICY_PACKS) {
    it(`${pack.id}: rules are structurally sound`, () => {
      const ids = pack.rules.map((rule) => rule.id);
      assert.equal(new Set(ids).size, ids.length, 'unique ids');
      for (const rule of pack.rules) {
        const where = `${pack.id}/${rule.id}`;
        assert.match(rule.id, /^[a-z][a-z0-9-]*$/, `${where}: id has no reserved ':' or '/'`);
        assert.notEqual(rule.id, 'catastrophic-floor');
        assert.ok((EFFECTS as readonly string[]).includes(rule.effect), where);
        const priority = rule.priority ?? 100;
        assert.ok(Number.isInteger(priority) && priority >= 2 && priority <= 10_000, `${where}: priority`);
        assert.ok(rule.description && rule.description.length > 0, `${where}: description`);
        assert.ok(
          rule.conditions !== undefined || rule.bindings !== undefined,
          `${where}: matches something specific`,
        );
        for (const type of rule.bindings?.actorTypes ?? []) {
          assert.ok((ACTOR_TYPES as readonly string[]).includes(type), `${where}: actor type ${type}`);
        }
        for (const code of rule.bindings?.oiCodes ?? []) assert.match(code, /^OI-[0-9*?]+$/, where);
        const conditions = conditionsOf(rule.conditions);
        assert.ok(conditions.length > 0 || rule.bindings, where);
        for (const condition of conditions) {
          assert.deepEqual(
            Object.keys(condition).filter((key) => !['path', 'op', 'value', 'valuePath'].includes(key)),
            [],
            `${where}: condition keys`,
          );
          assert.ok((OPERATORS as readonly string[]).includes(condition.op), `${where}: op ${condition.op}`);
          checkPath(condition.path, where);
          const hasValue = 'value' in condition;
          const hasValuePath = 'valuePath' in condition;
          if (condition.op === 'EXISTS') {
            assert.ok(!hasValue && !hasValuePath, `${where}: EXISTS takes no value`);
          } else {
            assert.ok(hasValue !== hasValuePath, `${where}: exactly one of value / valuePath`);
          }
          if (condition.valuePath !== undefined) checkPath(condition.valuePath, where);
          if (condition.op === 'IN' || condition.op === 'NOT_IN')
            assert.ok(Array.isArray(condition.value), where);
          if (condition.op === 'MATCHES') {
            assert.equal(typeof condition.value, 'string', where);
            assert.doesNotThrow(
              () => RE2JS.compile(String(condition.value)),
              `${where}: ${String(condition.value)}`,
            );
          }
          if (['GT', 'GTE', 'LT', 'LTE'].includes(condition.op) && hasValue) {
            assert.equal(typeof condition.value, 'number', where);
          }
        }
      }
    });
  }

  it('keeps bare-args MATCHES conditions well under the policy limit of 50, all packs together', () => {
    const bare = POLICY_PACKS.flatMap((pack) => pack.rules)
      .flatMap((rule) => conditionsOf(rule.conditions))
      .filter((condition) => condition.path === 'args' && condition.op === 'MATCHES');
    assert.ok(bare.length <= 10, `${bare.length}`);
  });

  it('the RE2 engine rejects what the packs must not use', () => {
    assert.throws(() => RE2JS.compile('(?=x)'));
    assert.throws(() => RE2JS.compile('(a)\\1'));
  });
});

describe('policy packs: starter', () => {
  it('is exactly the contract starter policy', () => {
    assert.deepEqual(starterRules(), [
      {
        id: 'starter/allow-reads',
        description:
          'Approve a read interpreted with enough confidence, policy-compliant, not touching production, ' +
          'sensitive data or privileged access, and scoring below the escalation threshold',
        effect: 'ALLOW',
        priority: 100,
        conditions: {
          all: [
            { path: 'risk.operation_type', op: 'EQ', value: 'read' },
            { path: 'intent.confidence', op: 'GTE', valuePath: 'thresholds.lowConfidenceEscalateBelow' },
            { path: 'risk.policyCompliant', op: 'EQ', value: true },
            { path: 'risk.production', op: 'EQ', value: false },
            { path: 'risk.sensitive', op: 'EQ', value: false },
            { path: 'risk.privileged', op: 'EQ', value: false },
            { path: 'risk.score', op: 'LT', valuePath: 'thresholds.escalateAt' },
          ],
        },
      },
      {
        id: 'starter/escalate-writes',
        description: 'Every write goes to a human reviewer',
        effect: 'ESCALATE',
        priority: 100,
        conditions: { all: [{ path: 'risk.operation_type', op: 'EQ', value: 'write' }] },
      },
    ]);
  });

  const starter = starterRules();

  it('approves low-risk confirmed reads only', () => {
    assert.equal(outcome(starter, { action: 'list open pull requests' }), 'ALLOW');
    assert.equal(outcome(starter, { action: 'list', base: 59 }), 'ALLOW');
    assert.equal(outcome(starter, { action: 'list', base: 60 }), 'DENY (default)');
    assert.equal(outcome(starter, { action: 'list', production: true }), 'DENY (default)');
    assert.equal(outcome(starter, { action: 'list', sensitive: true }), 'DENY (default)');
    assert.equal(outcome(starter, { action: 'list', privileged: true }), 'DENY (default)');
    assert.equal(outcome(starter, { action: 'list', policyCompliant: false }), 'DENY (default)');
  });

  it('escalates every write, including unknown and mixed actions', () => {
    assert.equal(outcome(starter, { action: 'merge pull request 12' }), 'ESCALATE');
    assert.equal(outcome(starter, { action: 'frobnicate' }), 'ESCALATE');
    assert.equal(outcome(starter, { action: 'list files and delete them' }), 'ESCALATE');
  });
});

describe('policy packs: what the packs decide (installed next to starter)', () => {
  const withPack = (id: string): Rule[] => {
    const pack = getPack(id);
    assert.ok(pack);
    return [...starterRules(), ...packRules(pack)];
  };

  it('github-safe-merge', () => {
    const rules = withPack('github-safe-merge');
    assert.equal(outcome(rules, { action: 'git push --force origin main' }), 'DENY');
    assert.equal(outcome(rules, { action: 'push', args: { command: 'git push -f origin master' } }), 'DENY');
    assert.equal(
      outcome(rules, { action: 'update ref', args: { ref: 'refs/heads/main', force: true } }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'git push --force origin feature-x' }), 'ESCALATE');
    assert.equal(outcome(rules, { action: 'delete branch main' }), 'DENY');
    assert.equal(outcome(rules, { action: 'git push origin --delete master' }), 'DENY');
    assert.equal(outcome(rules, { action: 'delete branch feature-x' }), 'ESCALATE');
    assert.equal(outcome(rules, { action: 'approve pull request 12', actorType: 'agent' }), 'DENY');
    assert.equal(outcome(rules, { action: 'approve pull request 12', actorType: 'human' }), 'ESCALATE');
    assert.equal(
      outcome(rules, { action: 'review', actorType: 'agent', args: { event: 'APPROVE' } }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'gh pr merge 12 --admin' }), 'DENY');
    assert.equal(outcome(rules, { action: 'merge pull request 12', policyCompliant: false }), 'DENY');
    assert.equal(outcome(rules, { action: 'merge pull request 12' }), 'REQUIRE_APPROVAL');
    assert.deepEqual(matching(rules, { action: 'merge pull request 12' }), [
      'github-safe-merge/approve-merges',
      'starter/escalate-writes',
    ]);
    assert.equal(
      outcome(rules, { action: 'update file', github: { path: '.github/workflows/ci.yml' } }),
      'REQUIRE_APPROVAL',
    );
    assert.equal(
      outcome(rules, { action: 'commit', args: { files: [{ path: '.github/workflows/release.yml' }] } }),
      'REQUIRE_APPROVAL',
    );
    assert.equal(outcome(rules, { action: 'update branch protection for main' }), 'REQUIRE_APPROVAL');
    assert.equal(outcome(rules, { action: 'comment on pull request 12' }), 'ESCALATE');
    assert.equal(
      outcome(rules, { action: 'view the workflow', github: { path: '.github/workflows/ci.yml' } }),
      'ALLOW',
    );
  });

  it('production-change-control', () => {
    const rules = withPack('production-change-control');
    assert.equal(outcome(rules, { action: 'deploy v2', production: true }), 'REQUIRE_APPROVAL');
    assert.deepEqual(matching(rules, { action: 'deploy v2', production: true }), [
      'production-change-control/approve-production-deploys',
      'production-change-control/approve-production-writes',
      'starter/escalate-writes',
    ]);
    assert.equal(outcome(rules, { action: 'update config', production: true }), 'REQUIRE_APPROVAL');
    assert.equal(outcome(rules, { action: 'deploy v2', production: true, policyCompliant: false }), 'DENY');
    assert.equal(
      outcome(rules, { action: 'run', args: { sql: 'DROP TABLE users' }, production: true }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'truncate the audit table', production: true }), 'DENY');
    assert.equal(
      outcome(rules, { action: 'run', args: { sql: 'delete from users' }, production: true }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'run', args: { sql: 'DROP TABLE users' } }), 'ESCALATE');
    assert.equal(outcome(rules, { action: 'deploy --force', production: true }), 'DENY');
    assert.equal(
      outcome(rules, { action: 'commit', args: { command: 'git commit --no-verify' }, production: true }),
      'DENY',
    );
    assert.equal(
      outcome(rules, { action: 'deploy', production: true, privileged: true, actorType: 'agent' }),
      'DENY',
    );
    assert.equal(
      outcome(rules, { action: 'deploy', production: true, privileged: true, actorType: 'human' }),
      'REQUIRE_APPROVAL',
    );
    assert.equal(outcome(rules, { action: 'deploy to staging' }), 'ESCALATE');
    assert.equal(outcome(rules, { action: 'list pods', production: true }), 'DENY (default)');
  });

  it('sensitive-data-guard', () => {
    const rules = withPack('sensitive-data-guard');
    const key = `-----BEGIN RSA PRIVATE KEY-----\nMIIE...`;
    assert.equal(outcome(rules, { action: 'create secret', args: { value: key } }), 'DENY');
    assert.equal(
      outcome(rules, { action: 'create file', args: { content: { token: `ghp_${'a'.repeat(36)}` } } }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'list', args: { AKIAABCDEFGHIJKLMNOP: 1 } }), 'DENY');
    assert.equal(outcome(rules, { action: 'create file', args: { content: 'ghp_short' } }), 'ESCALATE');
    assert.equal(
      outcome(rules, { action: 'update records', sensitive: true, policyCompliant: false }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'export customers table', sensitive: true }), 'DENY');
    assert.equal(
      outcome(rules, { action: 'run', args: { command: 'pg_dump prod' }, sensitive: true }),
      'DENY',
    );
    assert.equal(
      outcome(rules, { action: 'update repository', args: { visibility: 'public' }, sensitive: true }),
      'DENY',
    );
    assert.equal(
      outcome(rules, { action: 'update repository', args: { private: false }, sensitive: true }),
      'DENY',
    );
    assert.equal(outcome(rules, { action: 'update repository', args: { private: false } }), 'ESCALATE');
    assert.equal(
      outcome(rules, { action: 'update file', args: { path: 'config/.env.production' } }),
      'REQUIRE_APPROVAL',
    );
    assert.equal(
      outcome(rules, { action: 'commit', github: { path: 'certs/server.pem' } }),
      'REQUIRE_APPROVAL',
    );
    assert.equal(
      outcome(rules, { action: 'commit', args: { files: [{ path: 'a.ts' }, { path: 'deploy/id_rsa' }] } }),
      'REQUIRE_APPROVAL',
    );
    assert.equal(outcome(rules, { action: 'update file', args: { path: 'src/environment.ts' } }), 'ESCALATE');
    assert.equal(outcome(rules, { action: 'update records', sensitive: true }), 'REQUIRE_APPROVAL');
    assert.equal(outcome(rules, { action: 'read records', sensitive: true }), 'DENY (default)');
    assert.equal(outcome(rules, { action: 'read the readme' }), 'ALLOW');
  });

  it('no pack turns a starter default-deny into an escalation or approval', () => {
    const readsStarterDenies: Scenario[] = [
      { action: 'list', production: true },
      { action: 'list', sensitive: true },
      { action: 'list', privileged: true, production: true },
      { action: 'view', base: 80 },
      { action: 'show', policyCompliant: false },
    ];
    for (const pack of POLICY_PACKS) {
      const rules = [...starterRules(), ...packRules(pack)];
      for (const scenario of readsStarterDenies) {
        const result = outcome(rules, scenario);
        assert.ok(
          result === 'DENY (default)' || result === 'DENY',
          `${pack.id}: ${JSON.stringify(scenario)} → ${result}`,
        );
      }
    }
  });
});
