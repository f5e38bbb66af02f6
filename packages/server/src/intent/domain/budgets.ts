/**
 * Agent budgets (contract §16): at most `maxApproved` APPROVED decisions per actor in the current
 * fixed UTC window (minute, hour or day) of each budget that matches the decision; beyond it the
 * decision becomes the budget's effect through the pseudo-rule `signal:budget-exceeded`. Pure: the
 * counts and the time are inputs.
 */

import type { ValidationIssue } from '../../errors/app-error.js';
import { pointerOf } from '../../foundation/json-pointer.js';
import { compileGlobSet, type GlobSet } from '../../policy/glob.js';
import { isPlainObject } from '../../policy/path.js';
import { MAX_BINDING_ENTRIES, MAX_BINDING_ENTRY_LENGTH } from '../../policy/policy-limits.js';

export const BUDGET_WINDOWS = ['minute', 'hour', 'day'] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];
export const BUDGET_EFFECTS = ['ESCALATE', 'DENY'] as const;
export type BudgetEffect = (typeof BUDGET_EFFECTS)[number];
export const MAX_BUDGETS = 100;
export const MAX_APPROVED = 1_000_000_000;
const BUDGET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface Budget {
  id: string;
  actorIds?: string[];
  targetSystems?: string[];
  oiCodes?: string[];
  window: BudgetWindow;
  maxApproved: number;
  onExceeded: BudgetEffect;
}

const WINDOW_MS: Readonly<Record<BudgetWindow, number>> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** The start of the fixed UTC window holding `at` (epoch ms): the minute, hour or day it is in. */
export function windowStart(window: BudgetWindow, at: number): number {
  return at - (((at % WINDOW_MS[window]) + WINDOW_MS[window]) % WINDOW_MS[window]);
}

/** The end (exclusive) of the window starting at `start`. */
export function windowEnd(window: BudgetWindow, start: number): number {
  return start + WINDOW_MS[window];
}

/**
 * Counters of windows starting before this are past for good at `at`: no decision made at `at` or
 * later reads or takes them. One day earlier than the current day's window, so that an instance
 * whose clock lags a little never finds its current counter swept.
 */
export function pastCountersBefore(at: number): number {
  return windowStart('day', at) - WINDOW_MS.day;
}

/** The starts of the three windows holding `at`, for reading an actor's counters. */
export function windowStarts(at: number): number[] {
  return [...new Set(BUDGET_WINDOWS.map((w) => windowStart(w, at)))];
}

const KEYS: ReadonlySet<string> = new Set([
  'id',
  'actorIds',
  'targetSystems',
  'oiCodes',
  'window',
  'maxApproved',
  'onExceeded',
]);
const GLOB_KEYS = ['actorIds', 'targetSystems', 'oiCodes'] as const;

/** `PUT /authority/budgets/:tenantId`'s body, checked; every issue names its path. */
export function validateBudgets(
  body: unknown,
): { ok: true; budgets: Budget[] } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, message: string): void => {
    issues.push({
      path: pointerOf(field),
      message: `${field}: ${message}`,
    });
  };
  if (!isPlainObject(body))
    return { ok: false, issues: [{ path: '/', message: 'the body must be {budgets: [...]}' }] };
  for (const key of Object.keys(body)) if (key !== 'budgets') issue(key, 'unknown field');
  const list = body.budgets;
  if (!Array.isArray(list)) {
    issue('budgets', Object.hasOwn(body, 'budgets') ? 'must be an array' : 'is required');
    return { ok: false, issues };
  }
  if (list.length > MAX_BUDGETS) {
    issue('budgets', `at most ${MAX_BUDGETS} budgets (got ${list.length})`);
    return { ok: false, issues };
  }
  const seen = new Set<string>();
  const budgets: Budget[] = [];
  list.forEach((raw: unknown, i: number) => {
    const at = `budgets[${i}]`;
    const before = issues.length;
    if (!isPlainObject(raw)) {
      issue(
        at,
        'must be an object {id, window, maxApproved, onExceeded, actorIds?, targetSystems?, oiCodes?}',
      );
      return;
    }
    for (const key of Object.keys(raw)) if (!KEYS.has(key)) issue(`${at}.${key}`, 'unknown field');
    if (typeof raw.id !== 'string' || !BUDGET_ID.test(raw.id)) {
      issue(`${at}.id`, 'must be 1..100 letters, digits, ".", "_" or "-", starting with a letter or digit');
    } else if (seen.has(raw.id)) {
      issue(`${at}.id`, `duplicate id ${JSON.stringify(raw.id)}`);
    } else seen.add(raw.id);
    if (typeof raw.window !== 'string' || !(BUDGET_WINDOWS as readonly string[]).includes(raw.window)) {
      issue(`${at}.window`, `must be one of ${BUDGET_WINDOWS.join(', ')}`);
    }
    const max = raw.maxApproved;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > MAX_APPROVED) {
      issue(`${at}.maxApproved`, `must be an integer 0..${MAX_APPROVED}`);
    }
    if (
      typeof raw.onExceeded !== 'string' ||
      !(BUDGET_EFFECTS as readonly string[]).includes(raw.onExceeded)
    ) {
      issue(`${at}.onExceeded`, `must be one of ${BUDGET_EFFECTS.join(', ')}`);
    }
    const budget: Budget = {
      id: raw.id as string,
      window: raw.window as BudgetWindow,
      maxApproved: max as number,
      onExceeded: raw.onExceeded as BudgetEffect,
    };
    for (const key of GLOB_KEYS) {
      if (!Object.hasOwn(raw, key)) continue;
      const globs = raw[key];
      if (!Array.isArray(globs) || globs.length === 0 || globs.length > MAX_BINDING_ENTRIES) {
        issue(`${at}.${key}`, `must be a non-empty array of at most ${MAX_BINDING_ENTRIES} globs`);
        continue;
      }
      globs.forEach((glob: unknown, j: number) => {
        if (typeof glob !== 'string' || glob.length < 1 || glob.length > MAX_BINDING_ENTRY_LENGTH) {
          issue(`${at}.${key}[${j}]`, `must be a glob of 1..${MAX_BINDING_ENTRY_LENGTH} characters`);
        }
      });
      budget[key] = [...(globs as string[])];
    }
    if (issues.length === before) budgets.push(budget);
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, budgets };
}

/** A budget with its globs compiled. */
export interface CompiledBudget {
  readonly budget: Budget;
  readonly actorIds: GlobSet | null;
  readonly targetSystems: GlobSet | null;
  readonly oiCodes: GlobSet | null;
}

export function compileBudgets(budgets: readonly Budget[]): CompiledBudget[] {
  return budgets.map((budget) => ({
    budget,
    actorIds: budget.actorIds ? compileGlobSet(budget.actorIds) : null,
    targetSystems: budget.targetSystems ? compileGlobSet(budget.targetSystems) : null,
    oiCodes: budget.oiCodes ? compileGlobSet(budget.oiCodes) : null,
  }));
}

/** Whether a budget applies to an actor (its actorIds only): what the usage route lists. */
export function appliesToActor(budget: CompiledBudget, actorId: string): boolean {
  return budget.actorIds === null || budget.actorIds.test(actorId);
}

/** A decision's subject, as budgets match it. */
export interface BudgetSubject {
  actorId: string;
  targetSystem: string;
  oiCode: string;
}

/**
 * The most work matching every budget against a subject can take, in evaluation-budget steps (the
 * globs' own weights, `policy/glob.ts`): charged with the policy's evaluation (contract §4.5), so a
 * heavy budget list cannot make a decision slow.
 */
export function budgetMatchSteps(budgets: readonly CompiledBudget[], subject: BudgetSubject): number {
  let steps = 0;
  for (const budget of budgets) {
    steps += budget.actorIds?.steps(subject.actorId.length) ?? 0;
    steps += budget.targetSystems?.steps(subject.targetSystem.length) ?? 0;
    steps += budget.oiCodes?.steps(subject.oiCode.length) ?? 0;
  }
  return steps;
}

function matches(budget: CompiledBudget, subject: BudgetSubject): boolean {
  return (
    appliesToActor(budget, subject.actorId) &&
    (budget.targetSystems === null || budget.targetSystems.test(subject.targetSystem)) &&
    (budget.oiCodes === null || budget.oiCodes.test(subject.oiCode))
  );
}

/** The tenant's budgets and the actor's counts in their current windows, as the gates read them. */
export interface BudgetState {
  readonly budgets: readonly CompiledBudget[];
  /** APPROVED decisions of the actor, by `<budgetId>@<windowStart>`. */
  readonly counts: ReadonlyMap<string, number>;
}

export const NO_BUDGETS: BudgetState = { budgets: [], counts: new Map() };

export function counterKey(budgetId: string, start: number): string {
  return `${budgetId}@${start}`;
}

/** One unit an APPROVED decision takes of a matching budget, re-checked in its transaction. */
export interface BudgetClaim {
  budgetId: string;
  window: BudgetWindow;
  windowStart: number;
  maxApproved: number;
  onExceeded: BudgetEffect;
}

/** A budget the decision would pass: its effect and the rationale line naming budget, window and count. */
export interface BudgetExceeded {
  effect: BudgetEffect;
  rationale: string;
}

/** The rationale of an exceeded budget: which budget, which window, which count. */
export function exceededRationale(claim: BudgetClaim, actorId: string, count: number): string {
  return `budget ${claim.budgetId} exceeded: actor ${actorId} has ${count} of ${claim.maxApproved} APPROVED decisions in the current ${claim.window} (UTC window from ${new Date(claim.windowStart).toISOString()}): ${claim.onExceeded}`;
}

/**
 * The budgets an approval of this subject at `at` counts against, and the first of them (most
 * severe effect first, then in list order) already used up, if any.
 */
export function checkBudgets(
  state: BudgetState,
  subject: BudgetSubject,
  at: number,
): { claims: BudgetClaim[]; exceeded: BudgetExceeded | null } {
  const claims: BudgetClaim[] = [];
  let exceeded: BudgetExceeded | null = null;
  for (const compiled of state.budgets) {
    if (!matches(compiled, subject)) continue;
    const { budget } = compiled;
    const start = windowStart(budget.window, at);
    const claim: BudgetClaim = {
      budgetId: budget.id,
      window: budget.window,
      windowStart: start,
      maxApproved: budget.maxApproved,
      onExceeded: budget.onExceeded,
    };
    claims.push(claim);
    const count = state.counts.get(counterKey(budget.id, start)) ?? 0;
    if (
      count >= budget.maxApproved &&
      (exceeded === null || (exceeded.effect === 'ESCALATE' && budget.onExceeded === 'DENY'))
    ) {
      exceeded = { effect: budget.onExceeded, rationale: exceededRationale(claim, subject.actorId, count) };
    }
  }
  return { claims, exceeded };
}
