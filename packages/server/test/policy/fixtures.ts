import assert from 'node:assert/strict';
import { type CompiledPolicy, compilePolicy } from '../../src/policy/compile-policy.js';
import { type EvaluatePolicyResult, evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import type { Condition, ConditionGroup, EvaluationDocument, Rule } from '../../src/policy/rule.js';
import { validatePolicy } from '../../src/policy/validate-policy.js';

export interface DocOverrides {
  actor?: EvaluationDocument['actor'];
  targetSystem?: string;
  proposedAction?: string;
  args?: unknown;
  intent?: Partial<EvaluationDocument['intent']>;
  risk?: Partial<EvaluationDocument['risk']>;
  github?: EvaluationDocument['github'];
  thresholds?: Record<string, unknown>;
}

/** A read by an agent on acme/payments with defaults everywhere; override what a test needs. */
export function doc(overrides: DocOverrides = {}): EvaluationDocument {
  return {
    actor: overrides.actor ?? { id: 'agent-7', type: 'agent' },
    targetSystem: overrides.targetSystem ?? 'acme/payments',
    proposedAction: overrides.proposedAction ?? 'list pull requests',
    args: 'args' in overrides ? overrides.args : {},
    intent: { oiCode: 'OI-101', confidence: 0.9, ...overrides.intent },
    risk: {
      score: 10,
      operation_type: 'read',
      privileged: false,
      production: false,
      sensitive: false,
      policyCompliant: true,
      ...overrides.risk,
    },
    github: overrides.github === undefined ? null : overrides.github,
    thresholds: overrides.thresholds ?? {
      escalateAt: 60,
      denyAt: 90,
      lowConfidenceEscalateBelow: 0.5,
      modifiers: { privileged: 20, production: 20, sensitive: 15 },
    },
  };
}

/** Validates (failing the test on issues) and compiles. */
export function policyOf(rules: unknown[], allowPackIds = false): CompiledPolicy {
  const result = validatePolicy({ rules }, { allowPackIds });
  if (!result.ok) assert.fail(`policy refused: ${result.issues.map((i) => i.message).join('; ')}`);
  return compilePolicy(result.rules);
}

export function ids(result: EvaluatePolicyResult): string[] {
  return result.matched.map((m) => m.id);
}

/** Whether a single rule with this condition (or group) matches the document. */
export function holds(condition: Condition | ConditionGroup, document: EvaluationDocument): boolean {
  const group = 'path' in condition || 'op' in condition ? { all: [condition] } : condition;
  const rule: Rule = { id: 'r', effect: 'ALLOW', conditions: group as ConditionGroup };
  return evaluatePolicy(policyOf([rule]), document, { at: 0, explain: false }).matched.length === 1;
}

/** The explanation entry of the single rule `r` with this condition, or undefined when it matched. */
export function explain(condition: Condition | ConditionGroup, document: EvaluationDocument) {
  const group = 'path' in condition || 'op' in condition ? { all: [condition] } : condition;
  const rule: Rule = { id: 'r', effect: 'ALLOW', conditions: group as ConditionGroup };
  return evaluatePolicy(policyOf([rule]), document, { at: 0, explain: true }).explanation?.[0];
}
