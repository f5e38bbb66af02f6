/**
 * The decision over matched rules and signals (contract §4.5): the most severe effect wins
 * (DENY > REQUIRE_APPROVAL > ESCALATE > ALLOW); the deciding rule is, among the entries with the
 * winning effect, the lowest priority, then the lowest id (UTF-16 code-unit order).
 *
 * Signals are pseudo-rules the caller adds to the same list. They carry SIGNAL_PRIORITY = 0, below
 * the floor's 1 and every tenant rule's 2..10000, so when a signal and rules share the winning
 * effect the signal is the deciding rule: a threshold, low-confidence or gate fact is reported as
 * the reason before any rule that merely agrees with it, and the result never depends on how a
 * tenant numbered its rules. (The floor's escalation queue is decided from "the floor matched",
 * not from the deciding rule, so this choice does not change routing.)
 */
import { compareByPriorityThenId } from './compile-policy.js';
import { type Effect, type MatchedRule, SEVERITY } from './rule.js';

export const SIGNAL_PRIORITY = 0;

export const SIGNAL_IDS = {
  denyThreshold: 'signal:deny-threshold',
  escalateThreshold: 'signal:escalate-threshold',
  lowConfidence: 'signal:low-confidence',
  default: 'signal:default',
  killSwitch: 'signal:kill-switch',
  actorBlocked: 'signal:actor-blocked',
  evaluationBudget: 'signal:evaluation-budget',
  budgetExceeded: 'signal:budget-exceeded',
} as const;
export type SignalId = (typeof SIGNAL_IDS)[keyof typeof SIGNAL_IDS];

/** A signal as a matched pseudo-rule `{id, effect, priority: SIGNAL_PRIORITY}`. */
export function signalRule(id: SignalId, effect: Effect): MatchedRule {
  return { id, effect, priority: SIGNAL_PRIORITY };
}

export interface Decision {
  effect: Effect;
  decidingRule: MatchedRule;
}

export function mostSevere(a: Effect, b: Effect): Effect {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/**
 * Decides over a non-empty list of matched rules and signals, in any order (the result does not
 * depend on it). Throws on an empty list: "nothing matched" is the caller's default-deny gate.
 * The deciding rule is one of the list's own objects.
 */
export function decide(matched: readonly MatchedRule[]): Decision {
  let best: MatchedRule | undefined;
  for (const rule of matched) {
    if (best === undefined) {
      best = rule;
      continue;
    }
    const bySeverity = SEVERITY[rule.effect] - SEVERITY[best.effect];
    if (bySeverity > 0 || (bySeverity === 0 && compareByPriorityThenId(rule, best) < 0)) best = rule;
  }
  if (best === undefined)
    throw new Error('decide: no matched rule or signal (the caller applies default deny)');
  return { effect: best.effect, decidingRule: best };
}
