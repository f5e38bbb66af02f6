import type { MatchedRule } from '../../policy/rule.js';
import { type BudgetState, NO_BUDGETS } from './budgets.js';
import { evaluateIntent, type Outcome } from './evaluate-intent.js';
import type { GateContext } from './gates.js';
import type { IntentRequest } from './intent-request.js';

/** At most this many changed intents are listed in a simulation's answer (contract §16). */
export const MAX_SIMULATION_CHANGES = 200;

/** A decision as a simulation compares it: the outcome and the rule that decided it. */
export interface SimulatedDecision {
  decision: Outcome;
  decidingRule: MatchedRule;
}

/** One recorded intent to replay: its stored request and the decision it got when it was made. */
export interface SimulationSample {
  intentId: string;
  createdAtMs: number;
  request: IntentRequest;
  before: SimulatedDecision;
}

/**
 * The tenant's facts a replay reads: its gate context with the draft compiled as its policy, the
 * actors it blocked (each sample's actor is looked up here, as gate `rbac` does live) and each
 * actor's budget usage now (an actor without an entry has no budget that applies). `evaluatedAt` is
 * the moment of the simulation, for time-boxed rules and budget windows alike: the question is what
 * the draft would decide if it were active now. The kill switch is not part of a simulation: it is
 * an emergency stop, not policy.
 */
export interface SimulationContext extends Omit<GateContext, 'actorBlocked' | 'killSwitch' | 'budgets'> {
  blockedActors: ReadonlySet<string>;
  budgetsByActor: ReadonlyMap<string, BudgetState>;
}

export interface SimulationChange {
  intentId: string;
  createdAtMs: number;
  before: SimulatedDecision;
  after: SimulatedDecision;
}

export interface SimulationResult {
  evaluated: number;
  changed: number;
  /** `<before>-><after>` over APPROVED, ESCALATED, DENIED, changed pairs only. */
  transitions: Record<string, number>;
  /** The first MAX_SIMULATION_CHANGES changes, in the order of the samples (newest first). */
  changes: SimulationChange[];
}

const NO_KILL_SWITCH = { enabled: false, reason: null } as const;

/** A simulation with nothing replayed yet. */
export const EMPTY_SIMULATION: SimulationResult = { evaluated: 0, changed: 0, transitions: {}, changes: [] };

/**
 * The result of replaying `earlier` then `later` (consecutive pages of one sample, newest first),
 * as one `simulatePolicy` over both would give it. Pure.
 */
export function mergeSimulations(earlier: SimulationResult, later: SimulationResult): SimulationResult {
  const transitions = { ...earlier.transitions };
  for (const [key, count] of Object.entries(later.transitions))
    transitions[key] = (transitions[key] ?? 0) + count;
  return {
    evaluated: earlier.evaluated + later.evaluated,
    changed: earlier.changed + later.changed,
    transitions,
    changes: [...earlier.changes, ...later.changes].slice(0, MAX_SIMULATION_CHANGES),
  };
}

/**
 * Replays samples (newest first) against the context's policy and compares each new decision with
 * the one the intent got. A sample counts as changed when its decision differs; a different
 * deciding rule with the same decision is not a change. Pure: no I/O, no clock.
 */
export function simulatePolicy(
  samples: readonly SimulationSample[],
  context: SimulationContext,
): SimulationResult {
  const { blockedActors, budgetsByActor, ...gates } = context;
  const transitions: Record<string, number> = {};
  const changes: SimulationChange[] = [];
  let changed = 0;
  for (const sample of samples) {
    const evaluation = evaluateIntent({
      ...gates,
      killSwitch: NO_KILL_SWITCH,
      actorBlocked: blockedActors.has(sample.request.actor.id),
      budgets: budgetsByActor.get(sample.request.actor.id) ?? NO_BUDGETS,
      request: sample.request,
      explain: false,
    });
    if (evaluation.outcome === sample.before.decision) continue;
    changed += 1;
    const key = `${sample.before.decision}->${evaluation.outcome}`;
    transitions[key] = (transitions[key] ?? 0) + 1;
    if (changes.length < MAX_SIMULATION_CHANGES) {
      changes.push({
        intentId: sample.intentId,
        createdAtMs: sample.createdAtMs,
        before: sample.before,
        after: { decision: evaluation.outcome, decidingRule: evaluation.decidingRule },
      });
    }
  }
  return { evaluated: samples.length, changed, transitions, changes };
}

const NOUNS: Readonly<Record<string, { one: string; many: string }>> = {
  APPROVED: { one: 'an approval', many: 'approvals' },
  ESCALATED: { one: 'an escalation', many: 'escalations' },
  DENIED: { one: 'a denial', many: 'denials' },
};

function noun(decision: string, count: number): string {
  const forms = NOUNS[decision];
  if (!forms) return decision;
  return count === 1 ? forms.one : forms.many;
}

/** "this change turns 4 escalations into approvals; 1 approval into a denial" (for reports). */
export function describeTransitions(transitions: Readonly<Record<string, number>>): string {
  const parts = Object.entries(transitions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, count]) => {
      const [from = '', to = ''] = key.split('->');
      const subject = count === 1 ? noun(from, 1).replace(/^an? /, '1 ') : `${count} ${noun(from, count)}`;
      return `${subject} into ${noun(to, count)}`;
    });
  return parts.length === 0 ? 'this change turns no decision' : `this change turns ${parts.join('; ')}`;
}
