/**
 * Validation of a policy's rules (contract §4.5). Every issue names the rule (by id, or by index
 * when it has no usable id) and the field, e.g.
 *   rule "x": conditions.all[0].value: pattern is not RE2 (lookaround): "(?=" at offset 0; …
 * Unknown fields in rules, bindings, groups and conditions are refused. At most MAX_ISSUES issues
 * are reported. On success the rules are returned as fresh objects holding only known fields.
 */
import { matchSteps } from './evaluation-budget.js';
import { isPlainObject, type PathRoot, parsePath } from './path.js';
import { compilePattern, patternLimitIssue } from './pattern.js';
import {
  MAX_CONDITION_DEPTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_ISSUES,
  MAX_LIST_ENTRIES,
  MAX_POLICY_MATCH_STEPS,
  MAX_RULE_ID_LENGTH,
  MAX_RULE_PRIORITY,
  MIN_RULE_PRIORITY,
  ROOT_TEXT_LIMITS,
} from './policy-limits.js';
import { fieldJoin, hasControlCharacter, isJsonValue } from './policy-values.js';
import {
  type Condition,
  type ConditionGroup,
  EFFECTS,
  type Effect,
  FLOOR_RULE_ID,
  MAX_BARE_ARGS_MATCHES,
  MAX_RULES,
  OPERATORS,
  type Operator,
  type Rule,
} from './rule.js';
import { validateWindow } from './time-window.js';
import { validateBindings } from './validate-bindings.js';

export interface PolicyIssue {
  /** Location in the body, e.g. `rules[3].conditions.all[0].value`. */
  path: string;
  message: string;
  ruleId?: string;
  /** The field within the rule, e.g. `conditions.all[0].value`. */
  field?: string;
}

export type ValidatePolicyResult = { ok: true; rules: Rule[] } | { ok: false; issues: PolicyIssue[] };

export interface ValidatePolicyOptions {
  /** Accept pack rule ids `<pack>/<rule>` (pack installation and the stored active set). */
  allowPackIds?: boolean;
}

const RULE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'description',
  'effect',
  'priority',
  'bindings',
  'conditions',
  'activeFrom',
  'activeUntil',
]);
const GROUP_KEYS: ReadonlySet<string> = new Set(['all', 'any', 'not']);
const CONDITION_KEYS: ReadonlySet<string> = new Set(['path', 'op', 'value', 'valuePath']);
const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);
const EFFECT_SET: ReadonlySet<string> = new Set(EFFECTS);
const NUMERIC_OPS: ReadonlySet<Operator> = new Set(['GT', 'GTE', 'LT', 'LTE']);

class Aborted extends Error {}

interface RuleContext {
  index: number;
  /** The rule's id when it is a string (even when invalid), for naming. */
  id: string | undefined;
}

export function validatePolicy(input: unknown, options: ValidatePolicyOptions = {}): ValidatePolicyResult {
  const issues: PolicyIssue[] = [];
  const push = (issue: PolicyIssue): void => {
    issues.push(issue);
    if (issues.length >= MAX_ISSUES) throw new Aborted();
  };

  let rulesInput: unknown;
  if (Array.isArray(input)) rulesInput = input;
  else if (isPlainObject(input) && Object.hasOwn(input, 'rules')) rulesInput = input.rules;
  else return { ok: false, issues: [{ path: '', message: 'the policy must be {rules: [...]}' }] };
  if (!Array.isArray(rulesInput)) {
    return {
      ok: false,
      issues: [{ path: 'rules', field: 'rules', message: 'rules: must be an array of rules' }],
    };
  }
  if (rulesInput.length > MAX_RULES) {
    return {
      ok: false,
      issues: [
        {
          path: 'rules',
          field: 'rules',
          message: `rules: at most ${MAX_RULES} rules per policy (got ${rulesInput.length})`,
        },
      ],
    };
  }

  const seen = new Map<string, number>();
  let bareArgsMatches = 0;
  let policyMatchSteps = 0;
  const out: Rule[] = [];

  const validateRule = (raw: unknown, index: number): Rule | null => {
    const ctx: RuleContext = {
      index,
      id: isPlainObject(raw) && typeof raw.id === 'string' ? raw.id : undefined,
    };
    let valid = true;
    const issue = (field: string, message: string): void => {
      valid = false;
      const name = ctx.id === undefined ? `rules[${index}]` : `rule ${JSON.stringify(ctx.id)}`;
      const full: PolicyIssue = {
        path: field === '' ? `rules[${index}]` : `rules[${index}].${field}`,
        message: field === '' ? `${name}: ${message}` : `${name}: ${field}: ${message}`,
        field,
      };
      if (ctx.id !== undefined) full.ruleId = ctx.id;
      push(full);
    };

    if (!isPlainObject(raw)) {
      issue('', 'must be an object');
      return null;
    }
    for (const key of Object.keys(raw)) if (!RULE_KEYS.has(key)) issue(key, 'unknown field');

    // id
    const id = raw.id;
    if (typeof id !== 'string') {
      issue('id', Object.hasOwn(raw, 'id') ? 'must be a string' : 'is required');
    } else if (id.length < 1 || id.length > MAX_RULE_ID_LENGTH) {
      issue('id', `must be 1..${MAX_RULE_ID_LENGTH} characters`);
    } else if (hasControlCharacter(id)) {
      issue('id', 'must not contain control characters');
    } else if (id === FLOOR_RULE_ID) {
      issue('id', `"${FLOOR_RULE_ID}" is reserved for the built-in catastrophic floor`);
    } else if (id.includes(':')) {
      issue('id', 'ids containing ":" are reserved ("signal:" marks signals)');
    } else if (id.includes('/')) {
      if (!options.allowPackIds) {
        issue('id', 'ids containing "/" are reserved for pack rules (<pack>/<rule>)');
      } else {
        const parts = id.split('/');
        if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
          issue('id', 'pack rule ids have the form <pack>/<rule>');
        }
      }
    }
    if (typeof id === 'string') {
      const first = seen.get(id);
      if (first !== undefined) issue('id', `duplicate id (first used by rules[${first}])`);
      else seen.set(id, index);
    }

    // description
    if (Object.hasOwn(raw, 'description')) {
      const d = raw.description;
      if (typeof d !== 'string') issue('description', 'must be a string');
      else if (d.length > MAX_DESCRIPTION_LENGTH)
        issue('description', `at most ${MAX_DESCRIPTION_LENGTH} characters`);
    }

    // effect
    if (typeof raw.effect !== 'string' || !EFFECT_SET.has(raw.effect)) {
      issue('effect', Object.hasOwn(raw, 'effect') ? `must be one of ${EFFECTS.join(', ')}` : 'is required');
    }

    // priority
    if (Object.hasOwn(raw, 'priority')) {
      const p = raw.priority;
      if (typeof p !== 'number' || !Number.isInteger(p) || p < MIN_RULE_PRIORITY || p > MAX_RULE_PRIORITY) {
        issue(
          'priority',
          `must be an integer ${MIN_RULE_PRIORITY}..${MAX_RULE_PRIORITY} (priority 1 is the catastrophic floor's)`,
        );
      }
    }

    // bindings
    const bindings = Object.hasOwn(raw, 'bindings') ? validateBindings(raw.bindings, issue) : undefined;

    const window = validateWindow(raw, issue);

    // conditions
    const validateCondition = (c: Record<string, unknown>, field: string): Condition | null => {
      let ok = true;
      const bad = (sub: string, message: string): void => {
        ok = false;
        issue(fieldJoin(field, sub), message);
      };
      for (const key of Object.keys(c)) if (!CONDITION_KEYS.has(key)) bad(key, 'unknown field');

      let bareArgs = false;
      let root: PathRoot | undefined;
      if (typeof c.path !== 'string') {
        bad('path', Object.hasOwn(c, 'path') ? 'must be a string' : 'is required');
      } else {
        const parsed = parsePath(c.path);
        if (!parsed.ok) bad('path', parsed.error);
        else {
          bareArgs = parsed.path.bareArgs;
          root = parsed.path.root;
        }
      }

      const op = c.op;
      const opOk = typeof op === 'string' && OPERATOR_SET.has(op);
      if (!opOk) {
        bad('op', Object.hasOwn(c, 'op') ? `must be one of ${OPERATORS.join(', ')}` : 'is required');
        return null;
      }
      const operator = op as Operator;
      const hasValue = Object.hasOwn(c, 'value');
      const hasValuePath = Object.hasOwn(c, 'valuePath');

      if (operator === 'EXISTS') {
        if (hasValue || hasValuePath) bad('', 'EXISTS takes neither value nor valuePath');
      } else if (hasValue === hasValuePath) {
        bad('', `${operator} takes exactly one of value or valuePath`);
      } else if (hasValuePath) {
        const vp = c.valuePath;
        if (typeof vp !== 'string') {
          bad('valuePath', 'must be a string');
        } else if (operator === 'MATCHES') {
          bad(
            'valuePath',
            'MATCHES takes its pattern in value (patterns are compiled when the policy is saved)',
          );
        } else {
          const parsed = parsePath(vp);
          if (!parsed.ok) bad('valuePath', parsed.error);
          else if (parsed.path.hasWildcard) bad('valuePath', 'must name a single value ([*] is not allowed)');
          else if (parsed.path.bareArgs)
            bad('valuePath', 'must name a single value (bare args is not allowed)');
        }
      } else {
        const v = c.value;
        if (operator === 'IN' || operator === 'NOT_IN') {
          if (!Array.isArray(v)) bad('value', `${operator} needs an array value`);
          else if (v.length === 0) bad('value', `${operator} needs a non-empty array`);
          else if (v.length > MAX_LIST_ENTRIES) bad('value', `at most ${MAX_LIST_ENTRIES} entries`);
          else if (!isJsonValue(v)) bad('value', 'must be a JSON value');
        } else if (NUMERIC_OPS.has(operator)) {
          if (typeof v !== 'number' || !Number.isFinite(v)) bad('value', `${operator} needs a number`);
        } else if (operator === 'MATCHES') {
          if (typeof v !== 'string') {
            bad('value', 'MATCHES needs a string pattern');
          } else {
            const compiled = compilePattern(v);
            const limit = compiled.ok ? patternLimitIssue(v, compiled.re) : compiled.message;
            if (limit !== null) bad('value', limit);
            else if (compiled.ok && root !== undefined) {
              policyMatchSteps += matchSteps(compiled.re.programSize(), ROOT_TEXT_LIMITS[root]);
              if (policyMatchSteps > MAX_POLICY_MATCH_STEPS) {
                bad(
                  'value',
                  `the policy's MATCHES conditions are too costly: over the longest input they would take ${policyMatchSteps} steps with this one, more than ${MAX_POLICY_MATCH_STEPS} (compiled program size × longest text of the path, summed)`,
                );
              }
            }
          }
        } else if (!isJsonValue(v)) {
          bad('value', 'must be a JSON value');
        }
      }

      if (operator === 'MATCHES' && bareArgs) {
        bareArgsMatches += 1;
        if (bareArgsMatches > MAX_BARE_ARGS_MATCHES) {
          bad(
            'path',
            `at most ${MAX_BARE_ARGS_MATCHES} bare-args MATCHES conditions per policy (this is number ${bareArgsMatches})`,
          );
        }
      }
      if (!ok) return null;
      const cond: Condition = { path: c.path as string, op: operator };
      if (hasValue) cond.value = structuredClone(c.value);
      if (hasValuePath) cond.valuePath = c.valuePath as string;
      return cond;
    };

    const validateGroup = (g: unknown, field: string, depth: number): ConditionGroup | null => {
      if (!isPlainObject(g)) {
        issue(field, 'must be a condition group {all?, any?, not?}');
        return null;
      }
      if (depth > MAX_CONDITION_DEPTH) {
        issue(field, `condition groups nest deeper than ${MAX_CONDITION_DEPTH} levels`);
        return null;
      }
      let ok = true;
      for (const key of Object.keys(g)) {
        if (!GROUP_KEYS.has(key)) {
          ok = false;
          const hint =
            key === 'path' || key === 'op'
              ? ' (a group holds all, any or not; put the condition in all: [...])'
              : '';
          issue(fieldJoin(field, key), `unknown field${hint}`);
        }
      }
      const present = ['all', 'any', 'not'].filter((k) => Object.hasOwn(g, k));
      if (present.length === 0) {
        issue(field, 'a group needs at least one of all, any, not');
        return null;
      }
      const group: ConditionGroup = {};
      for (const key of ['all', 'any'] as const) {
        if (!Object.hasOwn(g, key)) continue;
        const list = g[key];
        const listField = fieldJoin(field, key);
        if (!Array.isArray(list)) {
          ok = false;
          issue(listField, 'must be an array of conditions or groups');
          continue;
        }
        if (list.length === 0) {
          ok = false;
          issue(listField, 'must not be empty');
          continue;
        }
        const children: Array<Condition | ConditionGroup> = [];
        list.forEach((child: unknown, j: number) => {
          const node = validateNode(child, `${listField}[${j}]`, depth);
          if (node === null) ok = false;
          else children.push(node);
        });
        group[key] = children;
      }
      if (Object.hasOwn(g, 'not')) {
        const node = validateNode(g.not, fieldJoin(field, 'not'), depth);
        if (node === null) ok = false;
        else group.not = node;
      }
      return ok ? group : null;
    };

    const validateNode = (node: unknown, field: string, depth: number): Condition | ConditionGroup | null => {
      if (isPlainObject(node) && (Object.hasOwn(node, 'path') || Object.hasOwn(node, 'op'))) {
        return validateCondition(node, field);
      }
      if (!isPlainObject(node)) {
        issue(field, 'must be a condition {path, op, value?|valuePath?} or a group {all?, any?, not?}');
        return null;
      }
      return validateGroup(node, field, depth + 1);
    };

    let conditions: ConditionGroup | undefined;
    if (Object.hasOwn(raw, 'conditions')) {
      conditions = validateGroup(raw.conditions, 'conditions', 1) ?? undefined;
    }

    if (!valid) return null;
    const rule: Rule = { id: id as string, effect: raw.effect as Effect };
    if (typeof raw.description === 'string') rule.description = raw.description;
    if (typeof raw.priority === 'number') rule.priority = raw.priority;
    if (bindings !== undefined && Object.keys(bindings).length > 0) rule.bindings = bindings;
    if (conditions !== undefined) rule.conditions = conditions;
    if (window.activeFrom !== undefined) rule.activeFrom = window.activeFrom;
    if (window.activeUntil !== undefined) rule.activeUntil = window.activeUntil;
    return rule;
  };

  try {
    rulesInput.forEach((raw: unknown, index: number) => {
      const rule = validateRule(raw, index);
      if (rule !== null) out.push(rule);
    });
  } catch (error) {
    if (!(error instanceof Aborted)) throw error;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, rules: out };
}
