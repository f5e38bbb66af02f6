import { tracingEnabled, withSyncSpan } from '../../foundation/tracing.js';
import type { FloorMatch } from '../../policy/catastrophic-floor.js';
import type { ExplanationEntry } from '../../policy/evaluate-policy.js';
import type { Effect, MatchedRule } from '../../policy/rule.js';
import { GATES, type Gate, type IntentEvaluationInput, initialGateState } from './gates.js';
import type { Interpretation } from './interpret.js';

export type Outcome = 'APPROVED' | 'ESCALATED' | 'DENIED';

export interface IntentEvaluation {
  effect: Effect;
  outcome: Outcome;
  riskScore: number;
  policyCompliant: boolean;
  rationale: string[];
  /** The gates that ran, in order; the last one decided. */
  gateTrace: Gate[];
  matchedRules: MatchedRule[];
  decidingRule: MatchedRule;
  interpretation: Interpretation;
  floor: FloorMatch;
  /** Where an escalation goes: the floor sends it to two-person review. */
  queue: 'standard' | 'catastrophic-review';
  explanation?: ExplanationEntry[];
  /** Steps of policy-evaluation work this evaluation spent (evaluation-budget.ts). */
  evaluationSteps: number;
}

const OUTCOME: Readonly<Record<Effect, Outcome>> = {
  ALLOW: 'APPROVED',
  ESCALATE: 'ESCALATED',
  REQUIRE_APPROVAL: 'ESCALATED',
  DENY: 'DENIED',
};

/**
 * Runs the gates of contract §4.6 (gates.ts) until one decides: kill_switch, rbac, structural
 * (interpretation and the catastrophic floor), authority_rules (tenant rules and threshold
 * signals, most severe wins), default (nothing matched: DENY). Pure: the same input always gives
 * the same evaluation.
 */
export function evaluateIntent(input: IntentEvaluationInput): IntentEvaluation {
  const state = initialGateState(input);
  const gateTrace: Gate[] = [];
  for (const [gate, step] of GATES) {
    gateTrace.push(gate);
    // A span per gate when tracing is on; otherwise the bare call (no closure on the hot path).
    const verdict = tracingEnabled()
      ? withSyncSpan(`gate ${gate}`, { 'authority.gate': gate }, () => step(state))
      : step(state);
    if (verdict === undefined) continue;
    return {
      effect: verdict.effect,
      outcome: OUTCOME[verdict.effect],
      riskScore: state.score,
      policyCompliant: state.flags.policyCompliant,
      rationale: state.rationale,
      gateTrace,
      matchedRules: verdict.matchedRules,
      decidingRule: verdict.decidingRule,
      interpretation: state.interpretation,
      floor: state.floor,
      queue: verdict.queue ?? 'standard',
      evaluationSteps: state.evaluationSteps,
      ...(state.explanation ? { explanation: state.explanation } : {}),
    };
  }
  throw new Error('the last gate (default) always decides');
}
