/**
 * Compiles validated rules once per policy version: paths parsed, MATCHES patterns compiled with
 * re2js, binding globs prepared, IN lists indexed, rules sorted by (priority, id). The result is
 * immutable and safe to share across concurrent evaluations.
 *
 * compilePolicy expects rules that passed validatePolicy; it throws on anything it cannot compile
 * (an invalid path or pattern), never silently drops a rule.
 */
import { compileGlobSet, type GlobSet } from './glob.js';
import { mustParsePath, type ParsedPath } from './path.js';
import { EvaluationPattern } from './pattern.js';
import {
  type Condition,
  type ConditionGroup,
  DEFAULT_PRIORITY,
  type Effect,
  type MatchedRule,
  type Operator,
  type Rule,
} from './rule.js';
import { indexRules, type RuleIndex } from './rule-index.js';
import { compileWindow, type TimeWindow } from './time-window.js';

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'other';

export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isFinite(value) ? 'number' : 'other';
    case 'string':
      return 'string';
    case 'object':
      return 'object';
    default:
      return 'other';
  }
}

/** A literal IN / NOT_IN list, indexed: primitives in a Set, other values compared deeply. */
export interface CompiledList {
  readonly items: readonly unknown[];
  readonly primitives: ReadonlySet<unknown>;
  readonly composites: readonly unknown[];
  readonly types: ReadonlySet<JsonType>;
}

export interface CompiledCondition {
  readonly kind: 'cond';
  readonly path: ParsedPath;
  readonly op: Operator;
  /** The literal comparison value (undefined for EXISTS and valuePath conditions). */
  readonly value: unknown;
  readonly valuePath: ParsedPath | null;
  /** MATCHES only. */
  readonly re: EvaluationPattern | null;
  /** IN / NOT_IN with a literal value only. */
  readonly list: CompiledList | null;
}

export interface CompiledGroup {
  readonly kind: 'group';
  readonly all: readonly CompiledNode[] | null;
  readonly any: readonly CompiledNode[] | null;
  readonly not: CompiledNode | null;
}

export type CompiledNode = CompiledCondition | CompiledGroup;

export const BINDING_NAMES = ['actorIds', 'actorTypes', 'targetSystems', 'oiCodes'] as const;
export type BindingName = (typeof BINDING_NAMES)[number];

export interface CompiledBindings {
  readonly actorIds: GlobSet | null;
  /** Exact match, no globs. */
  readonly actorTypes: ReadonlySet<string> | null;
  readonly targetSystems: GlobSet | null;
  readonly oiCodes: GlobSet | null;
}

export interface CompiledRule {
  readonly id: string;
  readonly effect: Effect;
  readonly priority: number;
  /** The `{id, effect, priority}` responses list; shared, do not mutate. */
  readonly matched: MatchedRule;
  readonly bindings: CompiledBindings | null;
  readonly conditions: CompiledNode | null;
  /** `activeFrom` / `activeUntil`; null when the rule is always active. */
  readonly window: TimeWindow | null;
}

export interface CompiledPolicy {
  /** Sorted by priority, then id (UTF-16 code-unit order). */
  readonly rules: readonly CompiledRule[];
  /** Selects the rules that can match a document (rule-index.ts). */
  readonly index: RuleIndex;
}

const PRIMITIVE_TYPES: ReadonlySet<JsonType> = new Set(['null', 'boolean', 'number', 'string']);

export function compileList(items: readonly unknown[]): CompiledList {
  const primitives = new Set<unknown>();
  const composites: unknown[] = [];
  const types = new Set<JsonType>();
  for (const item of items) {
    const type = jsonType(item);
    types.add(type);
    if (PRIMITIVE_TYPES.has(type)) primitives.add(item);
    else composites.push(item);
  }
  return { items, primitives, composites, types };
}

function isCondition(node: Condition | ConditionGroup): node is Condition {
  return 'path' in node || 'op' in node;
}

function compileCondition(condition: Condition): CompiledCondition {
  const path = mustParsePath(condition.path);
  const valuePath = condition.valuePath === undefined ? null : mustParsePath(condition.valuePath);
  let re: EvaluationPattern | null = null;
  let list: CompiledList | null = null;
  if (condition.op === 'MATCHES') {
    if (typeof condition.value !== 'string') throw new Error('MATCHES needs a string pattern in value');
    re = new EvaluationPattern(condition.value);
  }
  if ((condition.op === 'IN' || condition.op === 'NOT_IN') && valuePath === null) {
    if (!Array.isArray(condition.value)) throw new Error(`${condition.op} needs an array value`);
    list = compileList(condition.value);
  }
  return {
    kind: 'cond',
    path,
    op: condition.op,
    value: condition.op === 'EXISTS' || valuePath !== null ? undefined : condition.value,
    valuePath,
    re,
    list,
  };
}

export function compileNode(node: Condition | ConditionGroup): CompiledNode {
  if (isCondition(node)) return compileCondition(node);
  return {
    kind: 'group',
    all: node.all === undefined ? null : node.all.map(compileNode),
    any: node.any === undefined ? null : node.any.map(compileNode),
    not: node.not === undefined ? null : compileNode(node.not),
  };
}

function compileBindings(rule: Rule): CompiledBindings | null {
  const b = rule.bindings;
  if (b === undefined) return null;
  const compiled: CompiledBindings = {
    actorIds: b.actorIds === undefined ? null : compileGlobSet(b.actorIds),
    actorTypes: b.actorTypes === undefined ? null : new Set(b.actorTypes),
    targetSystems: b.targetSystems === undefined ? null : compileGlobSet(b.targetSystems),
    oiCodes: b.oiCodes === undefined ? null : compileGlobSet(b.oiCodes),
  };
  const empty =
    compiled.actorIds === null &&
    compiled.actorTypes === null &&
    compiled.targetSystems === null &&
    compiled.oiCodes === null;
  return empty ? null : compiled;
}

/** Priority, then id in UTF-16 code-unit order (locale-independent). */
export function compareByPriorityThenId(
  a: { priority: number; id: string },
  b: { priority: number; id: string },
): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

export function compileRule(rule: Rule): CompiledRule {
  const priority = rule.priority ?? DEFAULT_PRIORITY;
  try {
    return {
      id: rule.id,
      effect: rule.effect,
      priority,
      matched: Object.freeze({ id: rule.id, effect: rule.effect, priority }),
      bindings: compileBindings(rule),
      conditions: rule.conditions === undefined ? null : compileNode(rule.conditions),
      window: compileWindow(rule.activeFrom, rule.activeUntil),
    };
  } catch (error) {
    throw new Error(
      `rule ${JSON.stringify(rule.id)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function compilePolicy(rules: readonly Rule[]): CompiledPolicy {
  const compiled = Object.freeze(rules.map(compileRule).sort(compareByPriorityThenId));
  return { rules: compiled, index: indexRules(compiled) };
}
