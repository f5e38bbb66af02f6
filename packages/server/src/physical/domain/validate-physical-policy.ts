/**
 * Validation of an uploaded physical policy (contract §9). Every issue names the clause (by id, or
 * by index when it has none) and the field, e.g.
 *   clause "no-ignore": safeDefault: "ignore" is refused on a clause that covers or cites a safety category
 * with `path` relative to the document (`clauses[3].safeDefault`). Unknown fields are refused at
 * every level. On success the document is returned as fresh objects holding only known fields.
 */
import type { ValidationIssue } from '../../errors/app-error.js';
import { compileGlobSet } from '../../policy/glob.js';
import { isPlainObject } from '../../policy/path.js';
import { isSafetyCategory, listSafetyCategories } from '../../taxonomy/taxonomy.js';
import {
  CLAUSE_EFFECTS,
  CLAUSE_OPERATORS,
  type ClauseAppliesTo,
  type ClauseCondition,
  type ClauseEffect,
  type ClauseOperator,
  isReservedPredicate,
  MAX_CLAUSES,
  type PhysicalClause,
  type PhysicalPolicyDocument,
  RESERVED_CLAUSE_IDS,
  RESERVED_PREDICATES,
  type ScalarValue,
} from './physical-clause.js';
import {
  ACTOR_KINDS,
  type ActorKind,
  SAFE_DEFAULTS,
  SAFETY_CITATION_PATTERN,
  type SafeDefault,
} from './physical-types.js';

export const CLAUSE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
export const PREDICATE_PATTERN = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;
export const MAX_PREDICATE_LENGTH = 256;
export const MAX_CONDITIONS = 64;
export const MAX_APPLIES_TO_ENTRIES = 1_000;
export const MAX_GLOB_LENGTH = 256;
export const MAX_IN_VALUES = 1_000;
export const MAX_STRING_VALUE_LENGTH = 1_024;
export const MAX_DESCRIPTION_LENGTH = 2_000;
export const MAX_STATE_AGE_LIMIT_MS = 86_400_000;
export const MAX_ISSUES = 100;
/** An oiCodes entry: a code, or a glob over code characters. */
const OI_GLOB_PATTERN = /^[A-Z0-9*?-]{1,16}$/;

const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['clauses', 'description']);
const CLAUSE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'description',
  'effect',
  'appliesTo',
  'when',
  'requireSafetyRated',
  'maxStateAgeMs',
  'safeDefault',
  'citations',
]);
const APPLIES_TO_KEYS: ReadonlySet<string> = new Set(['oiCodes', 'actorKinds', 'schemas']);
const CONDITION_KEYS: ReadonlySet<string> = new Set(['predicate', 'op', 'value']);
const EFFECT_SET: ReadonlySet<string> = new Set(CLAUSE_EFFECTS);
const OPERATOR_SET: ReadonlySet<string> = new Set(CLAUSE_OPERATORS);
const ACTOR_KIND_SET: ReadonlySet<string> = new Set(ACTOR_KINDS);
const SAFE_DEFAULT_SET: ReadonlySet<string> = new Set(SAFE_DEFAULTS);
const ORDERING_OPS: ReadonlySet<ClauseOperator> = new Set(['lt', 'lte', 'gt', 'gte']);
/** The codes `ignore` must not cover: every safety category and the safety domain itself. */
const SAFETY_CODES: readonly string[] = ['OI-2900', ...listSafetyCategories().map((c) => c.code)];

export type ValidatePhysicalPolicyResult =
  | { ok: true; policy: PhysicalPolicyDocument }
  | { ok: false; issues: ValidationIssue[] };

class TooManyIssues extends Error {}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function isScalar(value: unknown): value is ScalarValue {
  if (typeof value === 'string') return value.length <= MAX_STRING_VALUE_LENGTH;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'boolean';
}

function scalarType(value: ScalarValue): 'string' | 'number' | 'boolean' {
  return typeof value as 'string' | 'number' | 'boolean';
}

/** Validates a policy document `{clauses: [...]}`. */
export function validatePhysicalPolicy(input: unknown): ValidatePhysicalPolicyResult {
  const issues: ValidationIssue[] = [];
  const push = (path: string, message: string): void => {
    issues.push({ path, message });
    if (issues.length >= MAX_ISSUES) throw new TooManyIssues();
  };
  try {
    const policy = validateDocument(input, push);
    return issues.length === 0 && policy !== null ? { ok: true, policy } : { ok: false, issues };
  } catch (error) {
    if (error instanceof TooManyIssues) return { ok: false, issues };
    throw error;
  }
}

type Push = (path: string, message: string) => void;

function validateDocument(input: unknown, push: Push): PhysicalPolicyDocument | null {
  if (!isPlainObject(input)) {
    push('', 'the policy must be a document {clauses: [...]}');
    return null;
  }
  for (const key of Object.keys(input)) {
    if (!DOCUMENT_KEYS.has(key)) push(key, `${key}: unknown field (a policy has clauses and description)`);
  }
  const document: PhysicalPolicyDocument = { clauses: [] };
  if (input.description !== undefined) {
    if (typeof input.description !== 'string' || input.description.length > MAX_DESCRIPTION_LENGTH) {
      push('description', `description: must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
    } else document.description = input.description;
  }
  const clauses = input.clauses;
  if (!Array.isArray(clauses)) {
    push('clauses', 'clauses: required, an array of clauses');
    return null;
  }
  if (clauses.length > MAX_CLAUSES) {
    push('clauses', `clauses: at most ${MAX_CLAUSES} clauses per policy (got ${clauses.length})`);
    return null;
  }
  const seen = new Map<string, number>();
  clauses.forEach((raw, index) => {
    const clause = validateClause(raw, index, seen, push);
    if (clause !== null) document.clauses.push(clause);
  });
  return document;
}

function validateClause(
  raw: unknown,
  index: number,
  seen: Map<string, number>,
  push: Push,
): PhysicalClause | null {
  const base = `clauses[${index}]`;
  if (!isPlainObject(raw)) {
    push(base, `clauses[${index}]: must be an object`);
    return null;
  }
  const name = typeof raw.id === 'string' ? `clause ${JSON.stringify(raw.id)}` : `clauses[${index}]`;
  let valid = true;
  const issue = (field: string, message: string): void => {
    valid = false;
    push(`${base}.${field}`, `${name}: ${field}: ${message}`);
  };

  for (const key of Object.keys(raw)) if (!CLAUSE_KEYS.has(key)) issue(key, 'unknown field');

  const id = raw.id;
  if (typeof id !== 'string' || !CLAUSE_ID_PATTERN.test(id)) {
    issue(
      'id',
      'required, 1 to 128 characters: letters, digits and . _ : / - (starting with a letter or digit)',
    );
  } else if (RESERVED_CLAUSE_IDS.has(id)) {
    issue('id', 'is the id of a built-in clause');
  } else if (seen.has(id)) {
    issue('id', `duplicates the id of clauses[${seen.get(id)}]`);
  } else seen.set(id, index);

  if (
    raw.description !== undefined &&
    (typeof raw.description !== 'string' || raw.description.length > MAX_DESCRIPTION_LENGTH)
  ) {
    issue('description', `must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  if (typeof raw.effect !== 'string' || !EFFECT_SET.has(raw.effect)) {
    issue('effect', `required, one of ${CLAUSE_EFFECTS.join(', ')}`);
  }
  if (typeof raw.safeDefault !== 'string' || !SAFE_DEFAULT_SET.has(raw.safeDefault)) {
    issue('safeDefault', `required, one of ${SAFE_DEFAULTS.join(', ')}`);
  }
  if (raw.requireSafetyRated !== undefined && typeof raw.requireSafetyRated !== 'boolean') {
    issue('requireSafetyRated', 'must be a boolean');
  }
  const age = raw.maxStateAgeMs;
  if (
    age !== undefined &&
    (!Number.isSafeInteger(age) || (age as number) < 1 || (age as number) > MAX_STATE_AGE_LIMIT_MS)
  ) {
    issue('maxStateAgeMs', `must be an integer from 1 to ${MAX_STATE_AGE_LIMIT_MS}`);
  }
  const appliesTo = validateAppliesTo(raw.appliesTo, issue);
  const when = validateWhen(raw.when, issue);
  const citations = validateCitations(raw.citations, issue);

  if (raw.safeDefault === 'ignore' && coversSafety(appliesTo, when, citations)) {
    issue(
      'safeDefault',
      '"ignore" is refused on a clause that covers or cites a safety category (OI-29xx); restrict appliesTo.oiCodes to non-safety codes',
    );
  }
  if (!valid) return null;

  const clause: PhysicalClause = {
    id: id as string,
    effect: raw.effect as ClauseEffect,
    safeDefault: raw.safeDefault as SafeDefault,
  };
  if (typeof raw.description === 'string') clause.description = raw.description;
  if (appliesTo !== undefined) clause.appliesTo = appliesTo;
  if (when !== undefined) clause.when = when;
  if (typeof raw.requireSafetyRated === 'boolean') clause.requireSafetyRated = raw.requireSafetyRated;
  if (typeof age === 'number') clause.maxStateAgeMs = age;
  if (citations !== undefined) clause.citations = citations;
  return clause;
}

type Issue = (field: string, message: string) => void;

function validateStringList(
  raw: unknown,
  field: string,
  issue: Issue,
  check: (entry: string) => string | null,
): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_APPLIES_TO_ENTRIES) {
    issue(
      field,
      `must be a non-empty array of at most ${MAX_APPLIES_TO_ENTRIES} entries (omit it to match everything)`,
    );
    return undefined;
  }
  const out: string[] = [];
  raw.forEach((entry, i) => {
    const problem = typeof entry === 'string' ? check(entry) : 'must be a string';
    if (problem === null) out.push(entry as string);
    else issue(`${field}[${i}]`, problem);
  });
  return out;
}

function validateAppliesTo(raw: unknown, issue: Issue): ClauseAppliesTo | undefined {
  if (raw === undefined) return undefined;
  if (!isPlainObject(raw)) {
    issue('appliesTo', 'must be an object {oiCodes?, actorKinds?, schemas?}');
    return undefined;
  }
  for (const key of Object.keys(raw))
    if (!APPLIES_TO_KEYS.has(key)) issue(`appliesTo.${key}`, 'unknown field');
  const out: ClauseAppliesTo = {};
  const oiCodes = validateStringList(raw.oiCodes, 'appliesTo.oiCodes', issue, (entry) =>
    OI_GLOB_PATTERN.test(entry)
      ? null
      : 'must be an open-intent code or a glob over one, e.g. OI-1502 or OI-15*',
  );
  if (oiCodes !== undefined) out.oiCodes = oiCodes;
  const actorKinds = validateStringList(raw.actorKinds, 'appliesTo.actorKinds', issue, (entry) =>
    ACTOR_KIND_SET.has(entry) ? null : `must be one of ${ACTOR_KINDS.join(', ')}`,
  );
  if (actorKinds !== undefined) out.actorKinds = actorKinds as ActorKind[];
  const schemas = validateStringList(raw.schemas, 'appliesTo.schemas', issue, (entry) =>
    entry.length >= 1 && entry.length <= MAX_GLOB_LENGTH && !hasControlCharacter(entry)
      ? null
      : `must be a glob of 1 to ${MAX_GLOB_LENGTH} printable characters`,
  );
  if (schemas !== undefined) out.schemas = schemas;
  return out;
}

function validateWhen(raw: unknown, issue: Issue): ClauseCondition[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length > MAX_CONDITIONS) {
    issue('when', `must be an array of at most ${MAX_CONDITIONS} conditions`);
    return undefined;
  }
  const out: ClauseCondition[] = [];
  raw.forEach((entry, i) => {
    const condition = validateCondition(entry, `when[${i}]`, issue);
    if (condition !== null) out.push(condition);
  });
  return out;
}

function validateCondition(raw: unknown, field: string, issue: Issue): ClauseCondition | null {
  if (!isPlainObject(raw)) {
    issue(field, 'must be an object {predicate, op, value?}');
    return null;
  }
  let valid = true;
  const bad = (sub: string, message: string): void => {
    valid = false;
    issue(`${field}.${sub}`, message);
  };
  for (const key of Object.keys(raw)) if (!CONDITION_KEYS.has(key)) bad(key, 'unknown field');
  const { predicate, op, value } = raw;
  if (
    typeof predicate !== 'string' ||
    predicate.length > MAX_PREDICATE_LENGTH ||
    !PREDICATE_PATTERN.test(predicate)
  ) {
    bad('predicate', 'required, a path-like name such as safety/emergency-stop');
  }
  if (typeof op !== 'string' || !OPERATOR_SET.has(op)) {
    bad('op', `required, one of ${CLAUSE_OPERATORS.join(', ')}`);
    return null;
  }
  const operator = op as ClauseOperator;
  if (operator === 'present' || operator === 'absent') {
    if (value !== undefined) bad('value', `must be omitted for ${operator}`);
  } else if (ORDERING_OPS.has(operator)) {
    if (typeof value !== 'number' || !Number.isFinite(value))
      bad('value', `must be a number for ${operator}`);
  } else if (operator === 'in') {
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      value.length > MAX_IN_VALUES ||
      !value.every(isScalar)
    ) {
      bad(
        'value',
        `must be a non-empty array of at most ${MAX_IN_VALUES} strings, numbers or booleans for in`,
      );
    }
  } else if (!isScalar(value)) {
    bad('value', `must be a string, a number or a boolean for ${operator}`);
  }
  if (valid && typeof predicate === 'string' && isReservedPredicate(predicate)) {
    const type = RESERVED_PREDICATES[predicate];
    if (ORDERING_OPS.has(operator) && type !== 'number') {
      bad('op', `${predicate} is a ${type}; ${operator} compares numbers`);
    }
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    if (!values.every((v) => scalarType(v) === type)) {
      bad('value', `${predicate} is a ${type}; compare it with a ${type}`);
    }
  }
  if (!valid) return null;
  const condition: ClauseCondition = { predicate: predicate as string, op: operator };
  if (value !== undefined)
    condition.value = Array.isArray(value) ? [...(value as ScalarValue[])] : (value as ScalarValue);
  return condition;
}

function validateCitations(raw: unknown, issue: Issue): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length > 32) {
    issue('citations', 'must be an array of at most 32 safety categories (OI-29NN)');
    return undefined;
  }
  const out: string[] = [];
  raw.forEach((entry, i) => {
    if (typeof entry === 'string' && SAFETY_CITATION_PATTERN.test(entry) && isSafetyCategory(entry))
      out.push(entry);
    else issue(`citations[${i}]`, 'must be a safety category of the taxonomy (OI-2901 … OI-2907)');
  });
  return out;
}

/**
 * Whether a clause covers or cites a safety category: it cites one, its `appliesTo.oiCodes` is
 * absent (every code) or matches one, or one of its conditions pins `goal/oiCode` to one.
 */
function coversSafety(
  appliesTo: ClauseAppliesTo | undefined,
  when: ClauseCondition[] | undefined,
  citations: string[] | undefined,
): boolean {
  if (citations !== undefined && citations.length > 0) return true;
  const oiCodes = appliesTo?.oiCodes;
  if (oiCodes === undefined) return true;
  const globs = compileGlobSet(oiCodes);
  if (SAFETY_CODES.some((code) => globs.test(code))) return true;
  for (const condition of when ?? []) {
    if (condition.predicate !== 'goal/oiCode' || (condition.op !== 'eq' && condition.op !== 'in')) continue;
    const values = Array.isArray(condition.value) ? condition.value : [condition.value];
    if (values.some((v) => typeof v === 'string' && SAFETY_CODES.includes(v))) return true;
  }
  return false;
}
