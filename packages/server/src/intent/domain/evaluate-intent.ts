import { FLOOR_MATCHED_RULE, type FloorMatch, matchFloor } from '../../policy/catastrophic-floor.js';
import type { CompiledPolicy } from '../../policy/compile-policy.js';
import { decide, SIGNAL_IDS, signalRule } from '../../policy/decide.js';
import { type ExplanationEntry, evaluatePolicy } from '../../policy/evaluate-policy.js';
import type { Effect, EvaluationDocument, MatchedRule } from '../../policy/rule.js';
import type { IntentRequest } from './intent-request.js';
import { riskFlags } from './intent-request.js';
import { type Interpretation, interpret } from './interpret.js';
import { riskScore } from './risk-score.js';
import { type ThresholdSettings, thresholdSignals } from './thresholds.js';

export type Gate = 'kill_switch' | 'rbac' | 'structural' | 'authority_rules' | 'default';
export type Outcome = 'APPROVED' | 'ESCALATED' | 'DENIED';

/** Everything the gates need, loaded before evaluation; evaluation itself does no I/O. */
export interface IntentEvaluationInput {
  request: IntentRequest;
  killSwitch: { enabled: boolean; reason: string | null };
  actorBlocked: boolean;
  thresholds: ThresholdSettings;
  floorEnabled: boolean;
  policy: CompiledPolicy;
  explain: boolean;
  /** `/authority/evaluate`'s `oiCode`: evaluated in place of the primary hypothesis's code. */
  oiCodeOverride?: string | undefined;
  /** Policy evaluation's work budget in steps (default EVALUATION_BUDGET_STEPS). */
  budgetSteps?: number | undefined;
}

export interface IntentEvaluation {
  effect: Effect;
  outcome: Outcome;
  riskScore: number;
  policyCompliant: boolean;
  rationale: string[];
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
 * The gates of contract §4.6 in order: kill_switch, rbac, structural (interpretation and the
 * catastrophic floor), authority_rules (tenant rules and threshold signals, most severe wins),
 * default (nothing matched: DENY). Pure: the same input always gives the same evaluation.
 */
export function evaluateIntent(input: IntentEvaluationInput): IntentEvaluation {
  const { request, thresholds } = input;
  const flags = riskFlags(request.riskContext);
  const score = riskScore(request.riskContext, thresholds.modifiers);
  const interpreted = interpret(request.proposedAction, request.args);
  const interpretation: Interpretation = input.oiCodeOverride
    ? { ...interpreted, primary: { ...interpreted.primary, oiCode: input.oiCodeOverride } }
    : interpreted;
  const base = {
    riskScore: score,
    policyCompliant: flags.policyCompliant,
    interpretation,
    floor: { matched: false } as FloorMatch,
    queue: 'standard' as const,
    evaluationSteps: 0,
  };

  if (input.killSwitch.enabled) {
    const rule = signalRule(SIGNAL_IDS.killSwitch, 'DENY');
    return {
      ...base,
      effect: 'DENY',
      outcome: 'DENIED',
      rationale: [
        `tenant kill switch is on${input.killSwitch.reason ? ` (${input.killSwitch.reason})` : ''}: DENY`,
      ],
      gateTrace: ['kill_switch'],
      matchedRules: [rule],
      decidingRule: rule,
    };
  }
  if (input.actorBlocked) {
    const rule = signalRule(SIGNAL_IDS.actorBlocked, 'DENY');
    return {
      ...base,
      effect: 'DENY',
      outcome: 'DENIED',
      rationale: [`actor ${request.actor.id} is blocked: DENY`],
      gateTrace: ['kill_switch', 'rbac'],
      matchedRules: [rule],
      decidingRule: rule,
    };
  }

  const rationale: string[] = [];
  const { primary } = interpretation;
  rationale.push(
    `interpreted as ${primary.oiCode} (${primary.operationType}, confidence ${primary.confidence})`,
  );
  const floor: FloorMatch = input.floorEnabled
    ? matchFloor(request.proposedAction, request.args)
    : { matched: false };
  const matched: MatchedRule[] = [];
  if (floor.matched) {
    matched.push({ ...FLOOR_MATCHED_RULE });
    rationale.push(`catastrophic floor matched '${floor.excerpt}' in ${floor.location}: ESCALATE`);
  }

  const doc: EvaluationDocument = {
    actor: { id: request.actor.id, type: request.actor.type },
    targetSystem: request.targetSystem,
    proposedAction: request.proposedAction,
    args: request.args,
    intent: { oiCode: primary.oiCode, confidence: primary.confidence },
    risk: {
      score,
      operation_type: primary.operationType,
      privileged: flags.privileged,
      production: flags.production,
      sensitive: flags.sensitive,
      policyCompliant: flags.policyCompliant,
    },
    github: (request.riskContext.github as Record<string, unknown> | undefined) ?? null,
    thresholds: { ...thresholds },
  };
  const evaluated = evaluatePolicy(input.policy, doc, {
    explain: input.explain,
    ...(input.budgetSteps === undefined ? {} : { budgetSteps: input.budgetSteps }),
  });
  if (evaluated.budgetExceeded) {
    // The rules evaluated before the budget ran out say nothing about the others: only the floor
    // (evaluated whole) and the signal are reported.
    const rule = signalRule(SIGNAL_IDS.evaluationBudget, 'DENY');
    rationale.push(
      `policy evaluation needs more than its budget of ${evaluated.budgetExceeded.limit} steps: DENY`,
    );
    return {
      ...base,
      evaluationSteps: evaluated.steps,
      floor,
      effect: 'DENY',
      outcome: 'DENIED',
      rationale,
      gateTrace: ['kill_switch', 'rbac', 'structural', 'authority_rules'],
      matchedRules: [...matched, rule],
      decidingRule: rule,
    };
  }
  for (const rule of evaluated.matched) {
    matched.push(rule);
    rationale.push(`rule ${rule.id} matched: ${rule.effect}`);
  }

  if (matched.length === 0) {
    const rule = signalRule(SIGNAL_IDS.default, 'DENY');
    rationale.push('no rule matched: DENY (default)');
    return {
      ...base,
      evaluationSteps: evaluated.steps,
      floor,
      effect: 'DENY',
      outcome: 'DENIED',
      rationale,
      gateTrace: ['kill_switch', 'rbac', 'structural', 'authority_rules', 'default'],
      matchedRules: [rule],
      decidingRule: rule,
      ...(evaluated.explanation ? { explanation: evaluated.explanation } : {}),
    };
  }

  for (const signal of thresholdSignals(score, primary.confidence, thresholds)) {
    matched.push(signal.rule);
    rationale.push(signal.rationale);
  }
  const decision = decide(matched);
  const outcome = OUTCOME[decision.effect];
  rationale.push(`most severe wins: ${decision.effect} (deciding rule ${decision.decidingRule.id})`);
  return {
    ...base,
    evaluationSteps: evaluated.steps,
    floor,
    effect: decision.effect,
    outcome,
    rationale,
    gateTrace: ['kill_switch', 'rbac', 'structural', 'authority_rules'],
    matchedRules: matched,
    decidingRule: decision.decidingRule,
    queue: floor.matched && outcome === 'ESCALATED' ? 'catastrophic-review' : 'standard',
    ...(evaluated.explanation ? { explanation: evaluated.explanation } : {}),
  };
}
