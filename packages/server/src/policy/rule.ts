/**
 * The intent-surface rule model (contract §4.5). Pure types shared by validation, compilation,
 * evaluation, the starter policy and the pack catalog.
 */
export const EFFECTS = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'] as const;
export type Effect = (typeof EFFECTS)[number];

/** Most severe first: DENY > REQUIRE_APPROVAL > ESCALATE > ALLOW. */
export const SEVERITY: Readonly<Record<Effect, number>> = {
  DENY: 3,
  REQUIRE_APPROVAL: 2,
  ESCALATE: 1,
  ALLOW: 0,
};

export const OPERATORS = [
  'EQ',
  'NEQ',
  'IN',
  'NOT_IN',
  'GT',
  'GTE',
  'LT',
  'LTE',
  'MATCHES',
  'CONTAINS',
  'EXISTS',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const ACTOR_TYPES = ['service', 'agent', 'human', 'workflow'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Condition {
  path: string;
  op: Operator;
  value?: unknown;
  valuePath?: string;
}

export interface ConditionGroup {
  all?: Array<Condition | ConditionGroup>;
  any?: Array<Condition | ConditionGroup>;
  not?: Condition | ConditionGroup;
}

export interface Bindings {
  actorIds?: string[];
  actorTypes?: string[];
  targetSystems?: string[];
  oiCodes?: string[];
}

export interface Rule {
  id: string;
  description?: string;
  effect: Effect;
  /** 2..10000, lower first; default 100. Priority 1 belongs to the catastrophic floor. */
  priority?: number;
  bindings?: Bindings;
  conditions?: ConditionGroup;
  /** ISO 8601 date-time with an offset: before it the rule does not match (contract §16). */
  activeFrom?: string;
  /** ISO 8601 date-time with an offset: from it on the rule does not match (contract §16). */
  activeUntil?: string;
}

export const DEFAULT_PRIORITY = 100;
export const MAX_RULES = 2_000;
export const MAX_BARE_ARGS_MATCHES = 50;
export const FLOOR_RULE_ID = 'catastrophic-floor';

/** A rule or signal that matched, as responses list them. */
export interface MatchedRule {
  id: string;
  effect: Effect;
  priority: number;
}

/** The document conditions read (contract §4.5). */
export interface EvaluationDocument {
  actor: { id: string; type: string };
  targetSystem: string;
  proposedAction: string;
  args: unknown;
  intent: { oiCode: string; confidence: number };
  risk: {
    score: number;
    operation_type: 'read' | 'write';
    privileged: boolean;
    production: boolean;
    sensitive: boolean;
    policyCompliant: boolean;
  };
  github: Record<string, unknown> | null;
  thresholds: Record<string, unknown>;
}
