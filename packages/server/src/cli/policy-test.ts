/**
 * `authority policy test CASES_FILE [--policy FILE]`: decision test cases run offline against a
 * policy, through the same pure decision function `POST /intent` uses (`evaluateIntent`), so a
 * policy change can be checked in CI before it is saved.
 *
 * Decisions where the issue is silent:
 * - Both files are JSON only (no YAML).
 * - A cases file that is not well formed (not an object, unknown fields, no cases, a case without a
 *   name, a duplicate name, an expectation that is not a decision, bad thresholds) is invalid input
 *   (exit 2), as is an invalid policy: they are mistakes in the test setup, not policy behaviour. A
 *   case whose `request` is not a valid IntentRequest is a failing case with the issues, since
 *   "this request is refused" is something a policy author may want to see in the report.
 * - A request is refused as the service refuses it: `validateIntentRequest`, then a `proposedAction`
 *   with no letter or digit (400 `INVALID_INTENT` upstream). `tenantId` may be left out (default
 *   `policy-test`): no rule can read it.
 * - `expect.matchedRules` ids are compared with every matched id, signals (`signal:…`) and the
 *   catastrophic floor (`catastrophic-floor`) included; the expected ids must all be among them,
 *   other matches are allowed.
 * - Every failure of a case is reported (wrong decision, missing matched rules, other deciding
 *   rule), not only the first.
 * - `--policy` takes `{rules: [...]}` (so the body of `GET /authority/policy` works as it is, its
 *   other fields ignored) or a bare array, validated with pack ids allowed.
 */

import { readFileSync } from 'node:fs';
import type { ValidationIssue } from '../errors/app-error.js';
import { NO_BUDGETS } from '../intent/domain/budgets.js';
import { evaluateIntent, type IntentEvaluation, type Outcome } from '../intent/domain/evaluate-intent.js';
import type { GateContext } from '../intent/domain/gates.js';
import { validateIntentRequest } from '../intent/domain/intent-request.js';
import { isInterpretable } from '../intent/domain/interpret.js';
import { DEFAULT_THRESHOLDS, mergeThresholds, type ThresholdSettings } from '../intent/domain/thresholds.js';
import { compilePolicy } from '../policy/compile-policy.js';
import type { ExplanationEntry } from '../policy/evaluate-policy.js';
import { starterRules } from '../policy/packs.js';
import { isPlainObject } from '../policy/path.js';
import type { Rule } from '../policy/rule.js';
import { validatePolicy } from '../policy/validate-policy.js';
import { PolicyTestInputError } from './policy-input-error.js';

export const OUTCOMES: readonly Outcome[] = ['APPROVED', 'ESCALATED', 'DENIED'];
export const DEFAULT_TEST_TENANT_ID = 'policy-test';

export interface PolicyTestExpectation {
  decision: Outcome;
  /** Rule ids that must all be among the matched rule ids (signals and the floor included). */
  matchedRules?: string[];
  decidingRule?: string;
}

export interface PolicyTestCase {
  name: string;
  /** An IntentRequest body; `tenantId` may be left out. Validated per case. */
  request: unknown;
  expect: PolicyTestExpectation;
  killSwitch?: boolean;
  actorBlocked?: boolean;
}

export interface PolicyTestOptions {
  /** Complete settings (default DEFAULT_THRESHOLDS). */
  thresholds?: ThresholdSettings;
  /** Whether the catastrophic floor runs (default true). */
  floorEnabled?: boolean;
}

export type PolicyCaseFailure =
  | { kind: 'invalid-request'; issues: ValidationIssue[] }
  | { kind: 'decision'; expected: Outcome; actual: Outcome; decidingRule: string }
  | { kind: 'matched-rules'; missing: string[]; matched: string[] }
  | { kind: 'deciding-rule'; expected: string; actual: string };

export interface PolicyCaseResult {
  name: string;
  passed: boolean;
  failures: PolicyCaseFailure[];
  /** Absent when the request was invalid. */
  evaluation?: IntentEvaluation;
}

export interface CasesFile {
  cases: PolicyTestCase[];
  options: Required<PolicyTestOptions>;
}

function withDefaultTenant(request: unknown): unknown {
  if (isPlainObject(request) && !Object.hasOwn(request, 'tenantId')) {
    return { tenantId: DEFAULT_TEST_TENANT_ID, ...request };
  }
  return request;
}

/**
 * Runs the cases against validated rules (`validatePolicy` output or `starterRules()`): each
 * request is validated, evaluated with `explain: true` at `evaluatedAt` (epoch ms; time-boxed
 * rules match only inside their window), and compared with its expectation. Pure: no I/O, no clock.
 */
export function runPolicyCases(
  cases: readonly PolicyTestCase[],
  policyRules: readonly Rule[],
  options: PolicyTestOptions,
  evaluatedAt: number,
): PolicyCaseResult[] {
  const policy = compilePolicy(policyRules);
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const floorEnabled = options.floorEnabled ?? true;
  return cases.map((testCase): PolicyCaseResult => {
    const validated = validateIntentRequest(withDefaultTenant(testCase.request));
    if (!validated.ok) {
      return {
        name: testCase.name,
        passed: false,
        failures: [{ kind: 'invalid-request', issues: validated.issues }],
      };
    }
    if (!isInterpretable(validated.value.proposedAction)) {
      return {
        name: testCase.name,
        passed: false,
        failures: [
          {
            kind: 'invalid-request',
            issues: [{ path: '/proposedAction', message: 'must contain a letter or a digit' }],
          },
        ],
      };
    }
    const context: GateContext = {
      killSwitch: { enabled: testCase.killSwitch === true, reason: null },
      actorBlocked: testCase.actorBlocked === true,
      thresholds,
      floorEnabled,
      policy,
      evaluatedAt,
      budgets: NO_BUDGETS,
    };
    const evaluation = evaluateIntent({ ...context, request: validated.value, explain: true });
    const failures: PolicyCaseFailure[] = [];
    const { expect } = testCase;
    if (evaluation.outcome !== expect.decision) {
      failures.push({
        kind: 'decision',
        expected: expect.decision,
        actual: evaluation.outcome,
        decidingRule: evaluation.decidingRule.id,
      });
    }
    const matched = evaluation.matchedRules.map((rule) => rule.id);
    const missing = (expect.matchedRules ?? []).filter((id) => !matched.includes(id));
    if (missing.length > 0) failures.push({ kind: 'matched-rules', missing, matched });
    if (expect.decidingRule !== undefined && expect.decidingRule !== evaluation.decidingRule.id) {
      failures.push({
        kind: 'deciding-rule',
        expected: expect.decidingRule,
        actual: evaluation.decidingRule.id,
      });
    }
    return { name: testCase.name, passed: failures.length === 0, failures, evaluation };
  });
}

// ---- parsing the files ----

const TOP_KEYS: ReadonlySet<string> = new Set(['thresholds', 'floorEnabled', 'cases']);
const CASE_KEYS: ReadonlySet<string> = new Set(['name', 'request', 'expect', 'killSwitch', 'actorBlocked']);
const EXPECT_KEYS: ReadonlySet<string> = new Set(['decision', 'matchedRules', 'decidingRule']);

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');
}

/** The issues of a parsed cases file, each `field: message`; empty when it is well formed. */
function casesFileIssues(input: unknown): string[] {
  if (!isPlainObject(input)) return ['the cases file must be an object {thresholds?, floorEnabled?, cases}'];
  const issues: string[] = [];
  for (const key of Object.keys(input)) if (!TOP_KEYS.has(key)) issues.push(`${key}: unknown field`);
  if (Object.hasOwn(input, 'floorEnabled') && typeof input.floorEnabled !== 'boolean') {
    issues.push('floorEnabled: must be a boolean');
  }
  const cases = input.cases;
  if (!Array.isArray(cases) || cases.length === 0) {
    issues.push('cases: must be a non-empty array of cases');
    return issues;
  }
  const names = new Map<string, number>();
  cases.forEach((raw: unknown, index: number) => {
    const at = `cases[${index}]`;
    if (!isPlainObject(raw)) {
      issues.push(`${at}: must be an object {name, request, expect, killSwitch?, actorBlocked?}`);
      return;
    }
    for (const key of Object.keys(raw)) if (!CASE_KEYS.has(key)) issues.push(`${at}.${key}: unknown field`);
    if (typeof raw.name !== 'string' || raw.name.trim() === '') {
      issues.push(`${at}.name: must be a non-empty string`);
    } else {
      const first = names.get(raw.name);
      if (first !== undefined) issues.push(`${at}.name: duplicate name (first used by cases[${first}])`);
      else names.set(raw.name, index);
    }
    if (!Object.hasOwn(raw, 'request')) issues.push(`${at}.request: is required`);
    for (const flag of ['killSwitch', 'actorBlocked'] as const) {
      if (Object.hasOwn(raw, flag) && typeof raw[flag] !== 'boolean') {
        issues.push(`${at}.${flag}: must be a boolean`);
      }
    }
    const expect = raw.expect;
    if (!isPlainObject(expect)) {
      issues.push(`${at}.expect: must be an object {decision, matchedRules?, decidingRule?}`);
      return;
    }
    for (const key of Object.keys(expect)) {
      if (!EXPECT_KEYS.has(key)) issues.push(`${at}.expect.${key}: unknown field`);
    }
    if (!OUTCOMES.includes(expect.decision as Outcome)) {
      issues.push(`${at}.expect.decision: must be one of ${OUTCOMES.join(', ')}`);
    }
    if (Object.hasOwn(expect, 'matchedRules') && !isStringArray(expect.matchedRules)) {
      issues.push(`${at}.expect.matchedRules: must be an array of rule ids`);
    }
    if (
      Object.hasOwn(expect, 'decidingRule') &&
      (typeof expect.decidingRule !== 'string' || expect.decidingRule === '')
    ) {
      issues.push(`${at}.expect.decidingRule: must be a rule id`);
    }
  });
  return issues;
}

/** A parsed cases file, checked; throws PolicyTestInputError naming every problem. */
export function parseCasesFile(input: unknown, source = 'the cases file'): CasesFile {
  const issues = casesFileIssues(input);
  let thresholds: ThresholdSettings = DEFAULT_THRESHOLDS;
  if (issues.length === 0 && isPlainObject(input) && Object.hasOwn(input, 'thresholds')) {
    const merged = mergeThresholds(DEFAULT_THRESHOLDS, input.thresholds);
    if (merged.ok) thresholds = merged.value;
    else for (const issue of merged.issues) issues.push(`thresholds${issue.path}: ${issue.message}`);
  }
  if (issues.length > 0) throw new PolicyTestInputError(`invalid ${source}: ${issues.join('; ')}`);
  const file = input as { floorEnabled?: boolean; cases: PolicyTestCase[] };
  return {
    cases: file.cases,
    options: { thresholds, floorEnabled: file.floorEnabled ?? true },
  };
}

/** A policy file's rules, validated (pack ids allowed); throws PolicyTestInputError naming the rules. */
export function parsePolicyFile(input: unknown, source = 'the policy'): Rule[] {
  const result = validatePolicy(input, { allowPackIds: true });
  if (!result.ok) {
    throw new PolicyTestInputError(
      `invalid policy ${source}: ${result.issues.map((issue) => issue.message).join('; ')}`,
    );
  }
  return result.rules;
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyTestInputError(`cannot read ${what} ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PolicyTestInputError(`${what} ${file} is not JSON: ${(error as Error).message}`);
  }
}

// ---- the report ----

function describeFailure(failure: PolicyCaseFailure): string {
  switch (failure.kind) {
    case 'invalid-request':
      return `invalid request (${failure.issues.length} ${failure.issues.length === 1 ? 'issue' : 'issues'})`;
    case 'decision':
      return `expected ${failure.expected}, got ${failure.actual} (deciding rule ${failure.decidingRule})`;
    case 'matched-rules':
      return `expected matched rules to include ${failure.missing.join(', ')} (matched: ${failure.matched.join(', ')})`;
    case 'deciding-rule':
      return `expected deciding rule ${failure.expected}, got ${failure.actual}`;
  }
}

/** One explanation entry: the candidate rule and its first failing binding or condition. */
export function describeExplanation(entry: ExplanationEntry): string {
  const { failed } = entry;
  const why =
    failed.kind === 'binding'
      ? `binding ${failed.binding} does not match`
      : failed.kind === 'inactive'
        ? failed.reason
        : `${failed.path} ${failed.op}: ${failed.reason}`;
  return `${entry.ruleId} (${entry.effect}): ${why}`;
}

/** The report: `PASS name` / `FAIL name: …` with details indented, then `N passed, M failed`. */
export function formatReport(results: readonly PolicyCaseResult[]): string[] {
  const lines: string[] = [];
  for (const result of results) {
    if (result.passed) {
      lines.push(`PASS ${result.name}`);
      continue;
    }
    lines.push(`FAIL ${result.name}: ${result.failures.map(describeFailure).join('; ')}`);
    for (const failure of result.failures) {
      if (failure.kind === 'invalid-request') {
        for (const issue of failure.issues) lines.push(`  ${issue.path}: ${issue.message}`);
      }
    }
    const evaluation = result.evaluation;
    if (evaluation === undefined) continue;
    lines.push('  rationale:');
    for (const line of evaluation.rationale) lines.push(`    ${line}`);
    if (evaluation.explanation !== undefined) {
      lines.push('  explanation (the first failing binding or condition of each rule that did not match):');
      if (evaluation.explanation.length === 0) lines.push('    (none)');
      for (const entry of evaluation.explanation) lines.push(`    ${describeExplanation(entry)}`);
    }
  }
  const failed = results.filter((result) => !result.passed).length;
  lines.push(`${results.length - failed} passed, ${failed} failed`);
  return lines;
}

/** The rules of `--policy FILE`, validated; the starter policy without one. */
export function loadPolicyRules(policyFile: string | undefined): Rule[] {
  return policyFile === undefined
    ? starterRules()
    : parsePolicyFile(readJson(policyFile, 'policy'), policyFile);
}

/** The command: reads both files, runs the cases, prints the report; 0 all passed, 1 otherwise. */
export function policyTest(
  casesFile: string,
  policyFile: string | undefined,
  out: NodeJS.WritableStream,
): number {
  const { cases, options } = parseCasesFile(readJson(casesFile, 'cases file'), `cases file ${casesFile}`);
  const rules = loadPolicyRules(policyFile);
  const results = runPolicyCases(cases, rules, options, Date.now());
  out.write(`${formatReport(results).join('\n')}\n`);
  return results.every((result) => result.passed) ? 0 : 1;
}
