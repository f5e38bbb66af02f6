/**
 * Evaluates a compiled policy against an evaluation document (contract §4.5). Pure: no I/O, no
 * clock, no randomness; the same policy and document always give the same result.
 *
 * Semantics, per condition (`path op value|valuePath`):
 * - The path gives a set of candidates (none when missing; several with `[*]`; the string leaves
 *   of args for a bare `args`). A condition holds when ANY candidate satisfies the operator, so a
 *   missing path makes every operator false, NEQ and NOT_IN included (absence never satisfies).
 * - A valuePath is resolved once; when missing, the condition is false whatever the operator.
 * - An operator holds for a candidate only when the types fit (else "type mismatch", false):
 *     EQ / NEQ       same JSON type; then deep equality / deep inequality
 *     IN / NOT_IN    the list is an array holding at least one element of the candidate's JSON type;
 *                    then some element is / no element is deeply equal (so NOT_IN against a list of
 *                    another type, or an empty list, is false)
 *     GT GTE LT LTE  both finite numbers
 *     MATCHES        a string candidate; the RE2 pattern matches anywhere in it
 *     CONTAINS       a string candidate and a string value (substring), or an array candidate
 *                    (some element deeply equal to the value)
 *     EXISTS         some candidate that is not null (a null `github` means "no GitHub context")
 * - Deep equality is JSON equality: same type, same primitive, arrays element-wise, objects with
 *   the same own keys (any order) and deeply equal values.
 * - A group holds when all of its present keys hold: every `all` child, at least one `any` child,
 *   and the `not` child does not hold. `not` inverts the result of its child, so `not` over a
 *   condition on a missing path is TRUE: `{not: {path: "args.force", op: "EQ", value: true}}`
 *   holds when args.force is absent. Write `all: [{path, op: "EXISTS"}, {not: …}]` to require
 *   presence.
 * - Bindings: actorIds, targetSystems and oiCodes are globs over actor.id, targetSystem and
 *   intent.oiCode; actorTypes is exact. Every present binding must hold (any entry of its list).
 * - Time-boxed rules (time-window.ts): outside `activeFrom <= at < activeUntil` a rule does not
 *   match, whatever its bindings and conditions; `at` is the evaluation time, an input.
 * - Work is metered (evaluation-budget.ts): when the next piece of work would pass the budget,
 *   evaluation stops and the result says so (`budgetExceeded`); the caller decides DENY.
 */
import { clipText } from '../foundation/text.js';
import type {
  BindingName,
  CompiledCondition,
  CompiledList,
  CompiledNode,
  CompiledPolicy,
  CompiledRule,
} from './compile-policy.js';
import { compileList, jsonType } from './compile-policy.js';
import {
  CANDIDATE_STEPS,
  containsSteps,
  EVALUATION_BUDGET_STEPS,
  EvaluationBudgetExceeded,
  EvaluationMeter,
  matchSteps,
  prefilterSteps,
} from './evaluation-budget.js';
import type { GlobSet } from './glob.js';
import { resolvePath, resolveSingle } from './path.js';
import type { Effect, EvaluationDocument, MatchedRule, Operator } from './rule.js';
import { describeInactivity, type Inactivity, inactivityAt } from './time-window.js';

export type ExplanationFailure =
  | { kind: 'binding'; binding: string }
  | { kind: 'condition'; path: string; op: Operator; reason: string }
  | ({ kind: 'inactive'; reason: string } & Inactivity);

export interface ExplanationEntry {
  ruleId: string;
  effect: Effect;
  failed: ExplanationFailure;
}

export interface EvaluatePolicyOptions {
  /** Also explain, for every rule that did not match, its first failing binding or condition. */
  explain: boolean;
  /** The evaluation time in epoch milliseconds: time-boxed rules match only inside their window. */
  at: number;
  /** The work budget in steps (default EVALUATION_BUDGET_STEPS). */
  budgetSteps?: number;
}

export interface EvaluatePolicyResult {
  /** Matched rules in policy order (priority, then id). */
  matched: MatchedRule[];
  /** Present when options.explain: one entry per rule that did not match, in policy order. */
  explanation?: ExplanationEntry[];
  /** Steps of work the decision did (an explanation's own work is not counted). */
  steps: number;
  /**
   * Evaluation stopped because its next piece of work would have passed the budget: `matched`
   * then covers only the rules evaluated before it stopped. An explanation has a budget of its own
   * and, past it, covers the rules before.
   */
  budgetExceeded?: { limit: number };
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  if (ak.length !== Object.keys(bRecord).length) return false;
  const aRecord = a as Record<string, unknown>;
  for (const key of ak) {
    if (!Object.hasOwn(bRecord, key) || !deepEqual(aRecord[key], bRecord[key])) return false;
  }
  return true;
}

function listHas(list: CompiledList, candidate: unknown): boolean {
  if (list.primitives.has(candidate)) return true;
  for (const item of list.composites) if (deepEqual(item, candidate)) return true;
  return false;
}

type Verdict = 'holds' | 'fails' | 'mismatch';

/** Whether one candidate satisfies the operator against the comparison value. */
function judge(
  condition: CompiledCondition,
  candidate: unknown,
  compare: unknown,
  list: CompiledList | null,
  meter: EvaluationMeter,
): Verdict {
  const type = jsonType(candidate);
  switch (condition.op) {
    case 'EQ':
      if (type !== jsonType(compare)) return 'mismatch';
      return deepEqual(candidate, compare) ? 'holds' : 'fails';
    case 'NEQ':
      if (type !== jsonType(compare)) return 'mismatch';
      return deepEqual(candidate, compare) ? 'fails' : 'holds';
    case 'IN':
      if (list === null || !list.types.has(type)) return 'mismatch';
      return listHas(list, candidate) ? 'holds' : 'fails';
    case 'NOT_IN':
      if (list === null || !list.types.has(type)) return 'mismatch';
      return listHas(list, candidate) ? 'fails' : 'holds';
    case 'GT':
    case 'GTE':
    case 'LT':
    case 'LTE': {
      if (type !== 'number' || jsonType(compare) !== 'number') return 'mismatch';
      const c = candidate as number;
      const v = compare as number;
      const ok =
        condition.op === 'GT'
          ? c > v
          : condition.op === 'GTE'
            ? c >= v
            : condition.op === 'LT'
              ? c < v
              : c <= v;
      return ok ? 'holds' : 'fails';
    }
    case 'MATCHES': {
      if (type !== 'string' || condition.re === null) return 'mismatch';
      const { re } = condition;
      const text = candidate as string;
      if (re.literals !== null) {
        meter.charge(prefilterSteps(re.literals.length, text.length));
        if (!re.mayMatch(text)) return 'fails';
      }
      meter.charge(matchSteps(re.programSize, text.length));
      return re.test(text) ? 'holds' : 'fails';
    }
    case 'CONTAINS':
      if (type === 'string') {
        if (typeof compare !== 'string') return 'mismatch';
        meter.charge(containsSteps((candidate as string).length));
        return (candidate as string).includes(compare) ? 'holds' : 'fails';
      }
      if (type === 'array') {
        for (const element of candidate as unknown[]) if (deepEqual(element, compare)) return 'holds';
        return 'fails';
      }
      return 'mismatch';
    case 'EXISTS':
      return candidate === null ? 'fails' : 'holds';
  }
}

/** Comparison value and list for a condition; `missing` when its valuePath resolves to nothing. */
function comparisonOf(
  condition: CompiledCondition,
  doc: EvaluationDocument,
  meter: EvaluationMeter,
): { missing: true } | { missing: false; compare: unknown; list: CompiledList | null } {
  if (condition.valuePath === null) return { missing: false, compare: condition.value, list: condition.list };
  const compare = resolveSingle(doc, condition.valuePath);
  if (compare === undefined) return { missing: true };
  if ((condition.op === 'IN' || condition.op === 'NOT_IN') && Array.isArray(compare)) {
    meter.charge(compare.length * CANDIDATE_STEPS);
    return { missing: false, compare, list: compileList(compare) };
  }
  return { missing: false, compare, list: null };
}

/** The candidates of a `[*]` or bare-args path, charged to the meter. */
function meteredCandidates(
  condition: CompiledCondition,
  doc: EvaluationDocument,
  meter: EvaluationMeter,
): unknown[] {
  const candidates = resolvePath(doc, condition.path);
  meter.charge(candidates.length * CANDIDATE_STEPS);
  return candidates;
}

function conditionHolds(
  condition: CompiledCondition,
  doc: EvaluationDocument,
  meter: EvaluationMeter,
): boolean {
  if (!condition.path.hasWildcard && !condition.path.bareArgs) {
    // One candidate at most: no allocation on the common path.
    const candidate = resolveSingle(doc, condition.path);
    if (candidate === undefined) return false;
    const comparison = comparisonOf(condition, doc, meter);
    if (comparison.missing) return false;
    return judge(condition, candidate, comparison.compare, comparison.list, meter) === 'holds';
  }
  const candidates = meteredCandidates(condition, doc, meter);
  if (candidates.length === 0) return false;
  const comparison = comparisonOf(condition, doc, meter);
  if (comparison.missing) return false;
  for (const candidate of candidates) {
    if (judge(condition, candidate, comparison.compare, comparison.list, meter) === 'holds') return true;
  }
  return false;
}

function nodeHolds(node: CompiledNode, doc: EvaluationDocument, meter: EvaluationMeter): boolean {
  if (node.kind === 'cond') return conditionHolds(node, doc, meter);
  if (node.all !== null) for (const child of node.all) if (!nodeHolds(child, doc, meter)) return false;
  if (node.any !== null) {
    let some = false;
    for (const child of node.any) {
      if (nodeHolds(child, doc, meter)) {
        some = true;
        break;
      }
    }
    if (!some) return false;
  }
  if (node.not !== null && nodeHolds(node.not, doc, meter)) return false;
  return true;
}

function globHolds(globs: GlobSet, subject: string, meter: EvaluationMeter): boolean {
  meter.charge(globs.steps(subject.length));
  return globs.test(subject);
}

/** The first binding the document fails, or null when every present binding holds. */
function failingBinding(
  rule: CompiledRule,
  doc: EvaluationDocument,
  meter: EvaluationMeter,
): BindingName | null {
  const b = rule.bindings;
  if (b === null) return null;
  if (b.actorIds !== null && !globHolds(b.actorIds, doc.actor.id, meter)) return 'actorIds';
  if (b.actorTypes !== null && !b.actorTypes.has(doc.actor.type)) return 'actorTypes';
  if (b.targetSystems !== null && !globHolds(b.targetSystems, doc.targetSystem, meter))
    return 'targetSystems';
  if (b.oiCodes !== null && !globHolds(b.oiCodes, doc.intent.oiCode, meter)) return 'oiCodes';
  return null;
}

// ---- explanation (computed only on request, for rules that did not match) ----

const EXCERPT_LENGTH = 60;

function excerpt(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > EXCERPT_LENGTH ? `${clipText(text, EXCERPT_LENGTH)}…` : text;
}

function expectation(op: Operator, compare: unknown): string {
  switch (op) {
    case 'EQ':
    case 'NEQ':
      return `a ${jsonType(compare)}`;
    case 'IN':
    case 'NOT_IN':
      return Array.isArray(compare) ? 'a value of a type the list holds' : 'an array to compare with';
    case 'GT':
    case 'GTE':
    case 'LT':
    case 'LTE':
      return 'numbers';
    case 'MATCHES':
      return 'a string';
    case 'CONTAINS':
      return 'a string (with a string value) or an array';
    case 'EXISTS':
      return 'a value';
  }
}

/** Why a condition is false (the caller knows it is). */
function whyFalse(condition: CompiledCondition, doc: EvaluationDocument, meter: EvaluationMeter): string {
  const candidates = meteredCandidates(condition, doc, meter);
  if (candidates.length === 0) {
    return condition.path.bareArgs ? 'args has no string leaf' : 'path not found';
  }
  if (condition.op === 'EXISTS') return 'value is null';
  const comparison = comparisonOf(condition, doc, meter);
  if (comparison.missing) return `valuePath ${condition.valuePath?.text ?? ''} not found`;
  const verdicts = candidates.map((c) => judge(condition, c, comparison.compare, comparison.list, meter));
  if (candidates.length === 1) {
    const only = candidates[0];
    if (verdicts[0] === 'mismatch') {
      return `type mismatch: ${condition.op} needs ${expectation(condition.op, comparison.compare)}, got ${jsonType(only)} ${excerpt(only)}`;
    }
    return `got ${excerpt(only)}`;
  }
  const mismatches = verdicts.filter((v) => v === 'mismatch').length;
  return mismatches === candidates.length
    ? `type mismatch: none of ${candidates.length} values fits ${condition.op}`
    : `none of ${candidates.length} values satisfies ${condition.op}`;
}

type Failure = { path: string; op: Operator; reason: string };

function explainFalse(node: CompiledNode, doc: EvaluationDocument, meter: EvaluationMeter): Failure {
  if (node.kind === 'cond') return { path: node.path.text, op: node.op, reason: whyFalse(node, doc, meter) };
  if (node.all !== null) {
    for (const child of node.all) if (!nodeHolds(child, doc, meter)) return explainFalse(child, doc, meter);
  }
  if (node.any !== null && !node.any.some((child) => nodeHolds(child, doc, meter))) {
    const first = node.any[0];
    if (first !== undefined) {
      const failure = explainFalse(first, doc, meter);
      const others = node.any.length - 1;
      if (others === 0) return failure;
      const tail =
        others === 1 ? 'the other "any" entry fails too' : `the other ${others} "any" entries fail too`;
      return { ...failure, reason: `${failure.reason} (${tail})` };
    }
  }
  if (node.not !== null) return explainTrue(node.not, doc, meter);
  throw new Error('explainFalse called on a node that holds');
}

/** The condition responsible for a node holding, reported because a `not` above it inverts it. */
function explainTrue(node: CompiledNode, doc: EvaluationDocument, meter: EvaluationMeter): Failure {
  if (node.kind === 'cond') return { path: node.path.text, op: node.op, reason: 'holds, negated by "not"' };
  if (node.any !== null) {
    for (const child of node.any) if (nodeHolds(child, doc, meter)) return explainTrue(child, doc, meter);
  }
  if (node.all !== null && node.all[0] !== undefined) return explainTrue(node.all[0], doc, meter);
  if (node.not !== null) return explainFalse(node.not, doc, meter);
  throw new Error('explainTrue called on an empty group');
}

/**
 * The rules that match, from the index's candidates (rule-index.ts), charged to the decision's
 * budget: the same work whether or not an explanation is asked for, so the decision is too.
 */
function matchRules(
  policy: CompiledPolicy,
  doc: EvaluationDocument,
  options: EvaluatePolicyOptions,
): EvaluatePolicyResult {
  const matched: MatchedRule[] = [];
  const meter = new EvaluationMeter(options.budgetSteps ?? EVALUATION_BUDGET_STEPS);
  try {
    for (const rule of policy.index.candidates(doc)) {
      if (rule.window !== null && inactivityAt(rule.window, options.at) !== null) continue;
      if (failingBinding(rule, doc, meter) !== null) continue;
      if (rule.conditions !== null && !nodeHolds(rule.conditions, doc, meter)) continue;
      matched.push({ ...rule.matched });
    }
  } catch (error) {
    if (!(error instanceof EvaluationBudgetExceeded)) throw error;
    return { matched, steps: meter.spent, budgetExceeded: { limit: meter.limit } };
  }
  return { matched, steps: meter.spent };
}

/**
 * Why each rule that did not match failed, in policy order, over every rule (not only the
 * candidates). Its work has a budget of its own, so that explaining never changes the decision;
 * past that budget the explanation stops, covering the rules before.
 */
function explainRules(
  policy: CompiledPolicy,
  doc: EvaluationDocument,
  options: EvaluatePolicyOptions,
  matched: ReadonlySet<string>,
): ExplanationEntry[] {
  const explanation: ExplanationEntry[] = [];
  const meter = new EvaluationMeter(options.budgetSteps ?? EVALUATION_BUDGET_STEPS);
  try {
    for (const rule of policy.rules) {
      if (matched.has(rule.id)) continue;
      const inactive = rule.window === null ? null : inactivityAt(rule.window, options.at);
      if (inactive !== null) {
        explanation.push({
          ruleId: rule.id,
          effect: rule.effect,
          failed: { kind: 'inactive', reason: describeInactivity(inactive), ...inactive },
        });
        continue;
      }
      const binding = failingBinding(rule, doc, meter);
      if (binding !== null) {
        explanation.push({ ruleId: rule.id, effect: rule.effect, failed: { kind: 'binding', binding } });
        continue;
      }
      if (rule.conditions !== null && !nodeHolds(rule.conditions, doc, meter)) {
        const failure = explainFalse(rule.conditions, doc, meter);
        explanation.push({ ruleId: rule.id, effect: rule.effect, failed: { kind: 'condition', ...failure } });
      }
    }
  } catch (error) {
    if (!(error instanceof EvaluationBudgetExceeded)) throw error;
  }
  return explanation;
}

export function evaluatePolicy(
  policy: CompiledPolicy,
  doc: EvaluationDocument,
  options: EvaluatePolicyOptions,
): EvaluatePolicyResult {
  const decided = matchRules(policy, doc, options);
  if (!options.explain) return decided;
  const matched = new Set(decided.matched.map((rule) => rule.id));
  return { ...decided, explanation: explainRules(policy, doc, options, matched) };
}
