import { FLOOR_MATCHED_RULE, type FloorMatch, matchFloor } from '../../policy/catastrophic-floor.js';
import type { CompiledPolicy } from '../../policy/compile-policy.js';
import { type ExplanationEntry, evaluatePolicy } from '../../policy/evaluate-policy.js';
import { EVALUATION_BUDGET_STEPS } from '../../policy/evaluation-budget.js';
import { decide, SIGNAL_IDS, signalRule } from '../../policy/most-severe-wins.js';
import type { Effect, EvaluationDocument, MatchedRule } from '../../policy/rule.js';
import { type BudgetClaim, type BudgetState, budgetMatchSteps, checkBudgets } from './budgets.js';
import { type IntentRequest, type RiskFlags, riskFlags } from './intent-request.js';
import { type Interpretation, interpret, VERB_TABLE } from './interpret.js';
import { riskScore } from './risk-score.js';
import { type ThresholdSettings, thresholdSignals } from './thresholds.js';

export type Gate = 'kill_switch' | 'rbac' | 'structural' | 'authority_rules' | 'default';

/**
 * What the gates read of the tenant: loaded from storage by `loadGateContext` for `POST /intent` and
 * `/authority/evaluate`, or given by a test case to `authority policy test`. A gate that needs a
 * new fact of the tenant adds it here and to its loader.
 */
export interface GateContext {
  killSwitch: { enabled: boolean; reason: string | null };
  actorBlocked: boolean;
  thresholds: ThresholdSettings;
  floorEnabled: boolean;
  policy: CompiledPolicy;
  /** The evaluation time (epoch ms): time-boxed rules match only inside their window (§16). */
  evaluatedAt: number;
  /** The tenant's budgets and the actor's counts in their current windows (§16). */
  budgets: BudgetState;
}

/** Everything the gates need: the tenant's context and the request; evaluation itself does no I/O. */
export interface IntentEvaluationInput extends GateContext {
  request: IntentRequest;
  explain: boolean;
  /** `/authority/evaluate`'s `oiCode`: evaluated in place of the primary hypothesis's code. */
  oiCodeOverride?: string | undefined;
  /** Policy evaluation's work budget in steps (default EVALUATION_BUDGET_STEPS). */
  budgetSteps?: number | undefined;
}

/** What the gates have found so far, handed from each gate to the next. */
export interface GateState {
  readonly input: IntentEvaluationInput;
  readonly score: number;
  readonly flags: RiskFlags;
  readonly interpretation: Interpretation;
  readonly rationale: string[];
  /** Matched rules and signals, for the decision of `authority_rules`. */
  readonly matched: MatchedRule[];
  floor: FloorMatch;
  evaluationSteps: number;
  explanation?: ExplanationEntry[];
}

/** A gate's decision: the evaluation ends here with this effect. */
export interface Verdict {
  effect: Effect;
  matchedRules: MatchedRule[];
  decidingRule: MatchedRule;
  /** Where an escalation goes (default `standard`). */
  queue?: 'standard' | 'catastrophic-review';
  /** ALLOW only: the budget units the approval takes, re-checked in the decision's transaction. */
  budgetClaims?: BudgetClaim[];
}

/** A gate reads the state, may add to it, and decides (a verdict) or passes (undefined). */
export type GateStep = (state: GateState) => Verdict | undefined;

/**
 * The interpretation with a supplied code in place of the primary hypothesis's (contract §4.9):
 * its operation stays a read only when the verb table reads that code too, else it is a write, so
 * the supplied code can only raise severity (`OI-105` is never a read, whatever the text says).
 */
function overridden(interpreted: Interpretation, oiCode: string): Interpretation {
  const readable = VERB_TABLE.some((row) => row.oiCode === oiCode && row.operationType === 'read');
  const operationType = readable ? interpreted.primary.operationType : 'write';
  return { ...interpreted, primary: { ...interpreted.primary, oiCode, operationType } };
}

/** The state before the first gate: the risk score and the interpretation every gate may read. */
export function initialGateState(input: IntentEvaluationInput): GateState {
  const { request } = input;
  const interpreted = interpret(request.proposedAction, request.args);
  return {
    input,
    score: riskScore(request.riskContext, input.thresholds.modifiers),
    flags: riskFlags(request.riskContext),
    interpretation: input.oiCodeOverride ? overridden(interpreted, input.oiCodeOverride) : interpreted,
    rationale: [],
    matched: [],
    floor: { matched: false },
    evaluationSteps: 0,
  };
}

function denial(id: (typeof SIGNAL_IDS)[keyof typeof SIGNAL_IDS], state: GateState, why: string): Verdict {
  const rule = signalRule(id, 'DENY');
  state.rationale.push(why);
  return { effect: 'DENY', matchedRules: [rule], decidingRule: rule };
}

const killSwitch: GateStep = (state) => {
  const { enabled, reason } = state.input.killSwitch;
  if (!enabled) return undefined;
  return denial(
    SIGNAL_IDS.killSwitch,
    state,
    `tenant kill switch is on${reason ? ` (${reason})` : ''}: DENY`,
  );
};

const rbac: GateStep = (state) =>
  state.input.actorBlocked
    ? denial(SIGNAL_IDS.actorBlocked, state, `actor ${state.input.request.actor.id} is blocked: DENY`)
    : undefined;

/** Interpretation and the catastrophic floor; never decides alone (the floor escalates through the rules). */
const structural: GateStep = (state) => {
  const { request, floorEnabled } = state.input;
  const { primary } = state.interpretation;
  state.rationale.push(
    `interpreted as ${primary.oiCode} (${primary.operationType}, confidence ${primary.confidence})`,
  );
  state.floor = floorEnabled ? matchFloor(request.proposedAction, request.args) : { matched: false };
  if (state.floor.matched) {
    state.matched.push({ ...FLOOR_MATCHED_RULE });
    state.rationale.push(
      `catastrophic floor matched '${state.floor.excerpt}' in ${state.floor.location}: ESCALATE`,
    );
  }
  return undefined;
};

function evaluationDocument(state: GateState): EvaluationDocument {
  const { request, thresholds } = state.input;
  const { primary } = state.interpretation;
  return {
    actor: { id: request.actor.id, type: request.actor.type },
    targetSystem: request.targetSystem,
    proposedAction: request.proposedAction,
    args: request.args,
    intent: { oiCode: primary.oiCode, confidence: primary.confidence },
    risk: {
      score: state.score,
      operation_type: primary.operationType,
      privileged: state.flags.privileged,
      production: state.flags.production,
      sensitive: state.flags.sensitive,
      policyCompliant: state.flags.policyCompliant,
    },
    github: (request.riskContext.github as Record<string, unknown> | undefined) ?? null,
    thresholds: { ...thresholds },
  };
}

/** Tenant rules and threshold signals, most severe wins; passes when nothing matched at all. */
const authorityRules: GateStep = (state) => {
  const { input } = state;
  const evaluated = evaluatePolicy(input.policy, evaluationDocument(state), {
    explain: input.explain,
    at: input.evaluatedAt,
    ...(input.budgetSteps === undefined ? {} : { budgetSteps: input.budgetSteps }),
  });
  state.evaluationSteps = evaluated.steps;
  // Asked for, the explanation is given whatever the decision; it has a budget of its own.
  if (evaluated.explanation) state.explanation = evaluated.explanation;
  if (evaluated.budgetExceeded) {
    // The rules evaluated before the budget ran out say nothing about the others: only the floor
    // (evaluated whole) and the signal are reported.
    const rule = signalRule(SIGNAL_IDS.evaluationBudget, 'DENY');
    state.rationale.push(
      `policy evaluation needs more than its budget of ${evaluated.budgetExceeded.limit} steps: DENY`,
    );
    return { effect: 'DENY', matchedRules: [...state.matched, rule], decidingRule: rule };
  }
  for (const rule of evaluated.matched) {
    state.matched.push(rule);
    state.rationale.push(`rule ${rule.id} matched: ${rule.effect}`);
  }
  if (state.matched.length === 0) return undefined;
  const { primary } = state.interpretation;
  for (const signal of thresholdSignals(state.score, primary.confidence, input.thresholds)) {
    state.matched.push(signal.rule);
    state.rationale.push(signal.rationale);
  }
  let decision = decide(state.matched);
  let budgetClaims: BudgetClaim[] | undefined;
  if (decision.effect === 'ALLOW') {
    const { request } = input;
    const subject = { actorId: request.actor.id, targetSystem: request.targetSystem, oiCode: primary.oiCode };
    // Matching the budgets is charged to the evaluation's budget, after the policy's own steps.
    const limit = input.budgetSteps ?? EVALUATION_BUDGET_STEPS;
    const budgetSteps = budgetMatchSteps(input.budgets.budgets, subject);
    if (state.evaluationSteps + budgetSteps > limit) {
      const rule = signalRule(SIGNAL_IDS.evaluationBudget, 'DENY');
      state.rationale.push(
        `matching the tenant's budgets needs ${budgetSteps} steps, past what is left of the evaluation budget of ${limit} steps: DENY`,
      );
      return { effect: 'DENY', matchedRules: [...state.matched, rule], decidingRule: rule };
    }
    state.evaluationSteps += budgetSteps;
    const checked = checkBudgets(input.budgets, subject, input.evaluatedAt);
    if (checked.exceeded === null) budgetClaims = checked.claims;
    else {
      state.matched.push(signalRule(SIGNAL_IDS.budgetExceeded, checked.exceeded.effect));
      state.rationale.push(checked.exceeded.rationale);
      decision = decide(state.matched);
    }
  }
  state.rationale.push(`most severe wins: ${decision.effect} (deciding rule ${decision.decidingRule.id})`);
  const escalated = decision.effect === 'ESCALATE' || decision.effect === 'REQUIRE_APPROVAL';
  return {
    effect: decision.effect,
    matchedRules: state.matched,
    decidingRule: decision.decidingRule,
    queue: state.floor.matched && escalated ? 'catastrophic-review' : 'standard',
    ...(budgetClaims && budgetClaims.length > 0 ? { budgetClaims } : {}),
  };
};

/** Nothing matched: DENY. */
const defaultDeny: GateStep = (state) => denial(SIGNAL_IDS.default, state, 'no rule matched: DENY (default)');

/**
 * The gates of contract §4.6, in order. Each runs only if every gate before it passed, and the
 * evaluation's `gateTrace` is the gates that ran. A new gate is one entry here (and, if it reads
 * a new fact of the tenant, a field of GateContext).
 */
export const GATES: ReadonlyArray<readonly [Gate, GateStep]> = [
  ['kill_switch', killSwitch],
  ['rbac', rbac],
  ['structural', structural],
  ['authority_rules', authorityRules],
  ['default', defaultDeny],
];
