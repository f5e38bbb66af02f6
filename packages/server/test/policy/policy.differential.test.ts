/**
 * Differential test: a deliberately naive reference evaluator, written from the contract's
 * wording (§4.5) with no compilation and no sharing of code with src/policy, must agree with
 * validatePolicy + compilePolicy + evaluatePolicy + decide on random policies and documents.
 *
 * The reference uses JavaScript RegExp for MATCHES and for globs: the patterns are the fixed test
 * literals of arbitraries.ts (SAFE_PATTERNS, GLOBS), never policy input, chosen to mean the same
 * thing under RE2 and RegExp.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import { decide } from '../../src/policy/most-severe-wins.js';
import type {
  Condition,
  ConditionGroup,
  EvaluationDocument,
  MatchedRule,
  Rule,
} from '../../src/policy/rule.js';
import { validatePolicy } from '../../src/policy/validate-policy.js';
import { docArb, rulesArb } from './arbitraries.js';

// ---------------------------------------------------------------- reference evaluator

const MISSING = Symbol('missing');

/** Splits `args.files[0].path`, `args["x y"]`, `args.tags[*]` into steps (vocabulary has no escapes). */
function steps(path: string): string[] {
  return path
    .replace(/\["([^"]*)"\]/g, '.$1')
    .replace(/\[(\d+|\*)\]/g, '.$1')
    .split('.');
}

function lookup(value: unknown, keys: string[]): unknown[] {
  if (value === undefined) return [];
  if (keys.length === 0) return [value];
  const [key, ...rest] = keys as [string, ...string[]];
  if (key === '*') return Array.isArray(value) ? value.flatMap((v) => lookup(v, rest)) : [];
  if (/^\d+$/.test(key)) return Array.isArray(value) ? lookup(value[Number(key)], rest) : [];
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)) {
    return lookup((value as Record<string, unknown>)[key], rest);
  }
  return [];
}

function stringLeaves(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (depth >= 16 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => stringLeaves(v, depth + 1));
  return Object.entries(value).flatMap(([k, v]) => [k, ...stringLeaves(v, depth + 1)]);
}

function candidates(doc: EvaluationDocument, path: string): unknown[] {
  if (path === 'args') return doc.args === undefined ? [] : stringLeaves(doc.args, 0);
  const [root, ...rest] = steps(path) as [string, ...string[]];
  return lookup((doc as unknown as Record<string, unknown>)[root], rest);
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Canonical JSON with sorted keys: equal strings iff deeply equal JSON values. */
function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const same = (a: unknown, b: unknown) => canon(a) === canon(b);

function one(c: Condition, x: unknown, v: unknown): boolean {
  switch (c.op) {
    case 'EQ':
      return kind(x) === kind(v) && same(x, v);
    case 'NEQ':
      return kind(x) === kind(v) && !same(x, v);
    case 'IN':
      return Array.isArray(v) && v.some((e) => same(e, x));
    case 'NOT_IN':
      return Array.isArray(v) && v.some((e) => kind(e) === kind(x)) && !v.some((e) => same(e, x));
    case 'GT':
      return typeof x === 'number' && typeof v === 'number' && x > v;
    case 'GTE':
      return typeof x === 'number' && typeof v === 'number' && x >= v;
    case 'LT':
      return typeof x === 'number' && typeof v === 'number' && x < v;
    case 'LTE':
      return typeof x === 'number' && typeof v === 'number' && x <= v;
    case 'MATCHES':
      return typeof x === 'string' && new RegExp(v as string).test(x);
    case 'CONTAINS':
      if (typeof x === 'string') return typeof v === 'string' && x.includes(v);
      return Array.isArray(x) && x.some((e) => same(e, v));
    case 'EXISTS':
      return x !== null;
  }
}

function refCondition(c: Condition, doc: EvaluationDocument): boolean {
  let v: unknown = c.value;
  if (c.valuePath !== undefined) {
    const found = candidates(doc, c.valuePath);
    v = found.length === 0 ? MISSING : found[0];
  }
  if (v === MISSING) return false;
  return candidates(doc, c.path).some((x) => one(c, x, v));
}

function refNode(n: Condition | ConditionGroup, doc: EvaluationDocument): boolean {
  if ('op' in n) return refCondition(n as Condition, doc);
  const g = n as ConditionGroup;
  return (
    (g.all === undefined || g.all.every((m) => refNode(m, doc))) &&
    (g.any === undefined || g.any.some((m) => refNode(m, doc))) &&
    (g.not === undefined || !refNode(g.not, doc))
  );
}

function globToRegExp(glob: string): RegExp {
  const body = Array.from(glob)
    .map((ch) => (ch === '*' ? '[\\s\\S]*' : ch === '?' ? '.' : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'su');
}

function refBindings(rule: Rule, doc: EvaluationDocument): boolean {
  const b = rule.bindings ?? {};
  const anyGlob = (globs: string[] | undefined, s: string) =>
    globs === undefined || globs.some((g) => globToRegExp(g).test(s));
  return (
    anyGlob(b.actorIds, doc.actor.id) &&
    (b.actorTypes === undefined || b.actorTypes.includes(doc.actor.type)) &&
    anyGlob(b.targetSystems, doc.targetSystem) &&
    anyGlob(b.oiCodes, doc.intent.oiCode)
  );
}

function reference(
  rules: Rule[],
  doc: EvaluationDocument,
): { matched: MatchedRule[]; decision: MatchedRule | null } {
  const matched = rules
    .filter((r) => refBindings(r, doc) && (r.conditions === undefined || refNode(r.conditions, doc)))
    .map((r) => ({ id: r.id, effect: r.effect, priority: r.priority ?? 100 }))
    .sort((a, b) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rank = { DENY: 3, REQUIRE_APPROVAL: 2, ESCALATE: 1, ALLOW: 0 };
  const decision =
    [...matched].sort(
      (a, b) =>
        rank[b.effect] - rank[a.effect] ||
        a.priority - b.priority ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )[0] ?? null;
  return { matched, decision };
}

// ---------------------------------------------------------------- the comparison

describe('differential: compiled engine vs naive reference', () => {
  test('agree on 10,000 random policies and documents', { timeout: 300_000 }, () => {
    let matchedTotal = 0;
    let withMatch = 0;
    let unmatchedTotal = 0;
    fc.assert(
      fc.property(rulesArb, docArb, (rules, doc) => {
        const validated = validatePolicy({ rules });
        if (!validated.ok) assert.fail(`generated policy refused: ${validated.issues[0]?.message}`);
        const policy = compilePolicy(validated.rules);
        const actual = evaluatePolicy(policy, doc, { at: 0, explain: true });
        const expected = reference(rules, doc);
        assert.deepEqual(actual.matched, expected.matched);
        // Without an explanation only the rule index's candidates are visited: same matches.
        assert.deepEqual(evaluatePolicy(policy, doc, { at: 0, explain: false }).matched, expected.matched);
        // The explanation covers exactly the rules that did not match, in policy order.
        const matchedIds = new Set(actual.matched.map((m) => m.id));
        assert.deepEqual(
          actual.explanation?.map((e) => e.ruleId),
          policy.rules.map((r) => r.id).filter((id) => !matchedIds.has(id)),
        );
        if (expected.decision === null) {
          assert.equal(actual.matched.length, 0);
        } else {
          assert.deepEqual(decide(actual.matched).decidingRule, expected.decision);
        }
        matchedTotal += actual.matched.length;
        unmatchedTotal += actual.explanation?.length ?? 0;
        if (actual.matched.length > 0) withMatch += 1;
      }),
      { numRuns: 10_000 },
    );
    // The vocabulary is meant to make matches frequent; make sure it does.
    assert.ok(withMatch > 2_000, `only ${withMatch} of 10,000 documents matched any rule`);
    assert.ok(
      matchedTotal > 5_000 && unmatchedTotal > 5_000,
      `${matchedTotal} matched, ${unmatchedTotal} not`,
    );
  });
});
