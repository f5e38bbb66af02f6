/**
 * The clause model of physical policies (contract §9): types, enumerations, the built-in clauses
 * and the reserved predicates. Pure data.
 */
import type { ActorKind, SafeDefault } from './physical-types.js';

export const CLAUSE_EFFECTS = ['allow', 'escalate', 'deny', 'audit-gap'] as const;
export type ClauseEffect = (typeof CLAUSE_EFFECTS)[number];

/** Most severe wins: deny > audit-gap > escalate > allow. */
export const CLAUSE_SEVERITY: Readonly<Record<ClauseEffect, number>> = {
  deny: 3,
  'audit-gap': 2,
  escalate: 1,
  allow: 0,
};

export const CLAUSE_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'present', 'absent'] as const;
export type ClauseOperator = (typeof CLAUSE_OPERATORS)[number];

export type ScalarValue = string | number | boolean;

export interface ClauseCondition {
  /** A predicate name of `physicalState`, or a reserved predicate. */
  predicate: string;
  op: ClauseOperator;
  /** A scalar for eq/neq, a number for lt/lte/gt/gte, a list of scalars for in, absent otherwise. */
  value?: ScalarValue | ScalarValue[];
}

export interface ClauseAppliesTo {
  /** Globs over the open-intent code of the hypothesis being evaluated. */
  oiCodes?: string[];
  actorKinds?: ActorKind[];
  /** Globs over the goal's `schema`. */
  schemas?: string[];
}

export interface PhysicalClause {
  id: string;
  description?: string;
  effect: ClauseEffect;
  appliesTo?: ClauseAppliesTo;
  /** All must hold; absent or empty: the clause fires whenever it applies. */
  when?: ClauseCondition[];
  /** Default true for deny and audit-gap clauses, false otherwise. */
  requireSafetyRated?: boolean;
  maxStateAgeMs?: number;
  safeDefault: SafeDefault;
  /** Safety categories `OI-29NN`. */
  citations?: string[];
}

export interface PhysicalPolicyDocument {
  description?: string;
  clauses: PhysicalClause[];
}

export const MAX_CLAUSES = 2_000;

/** The clauses the service applies before any tenant policy; they cannot be removed or shadowed. */
export const BUILT_IN_CLAUSE_IDS = {
  killSwitch: 'kill-switch',
  staleGoal: 'stale-goal',
  classifierFailClosed: 'classifier-fail-closed',
  auditGapOnChainBreak: 'audit-gap-on-chain-break',
} as const;
export type BuiltInClauseId = (typeof BUILT_IN_CLAUSE_IDS)[keyof typeof BUILT_IN_CLAUSE_IDS];

/** The pseudo-clause that decides when no allow clause fired. */
export const DEFAULT_DENY_CLAUSE_ID = 'default-deny';

export interface BuiltInClause {
  id: BuiltInClauseId;
  effect: 'deny' | 'audit-gap';
  /** `request`: the request's `dagNode.safeDefault`. */
  safeDefault: SafeDefault | 'request';
  description: string;
}

/** Built-ins in evaluation order. */
export const BUILT_IN_CLAUSES: readonly BuiltInClause[] = [
  {
    id: 'kill-switch',
    effect: 'deny',
    safeDefault: 'stop',
    description: "The tenant's kill switch is on.",
  },
  {
    id: 'stale-goal',
    effect: 'deny',
    safeDefault: 'request',
    description: 'The goal was issued more than 30 s away from the server clock (replay window).',
  },
  {
    id: 'classifier-fail-closed',
    effect: 'deny',
    safeDefault: 'request',
    description: 'The classifier found no rule for the goal and failed closed.',
  },
  {
    id: 'audit-gap-on-chain-break',
    effect: 'audit-gap',
    safeDefault: 'request',
    description: "The tenant's audit chain has an unacknowledged break.",
  },
];

/** Ids no tenant clause may take. */
export const RESERVED_CLAUSE_IDS: ReadonlySet<string> = new Set([
  ...Object.values(BUILT_IN_CLAUSE_IDS),
  DEFAULT_DENY_CLAUSE_ID,
]);

/** Replay window of `sourceTimestampMs` around the server clock. */
export const REPLAY_WINDOW_MS = 30_000;

/** Predicates the service fills; clauses read them without attestation. */
export const RESERVED_PREDICATES = {
  'classifier/confidence': 'number',
  'classifier/failClosed': 'boolean',
  'classifier/safetyBit': 'boolean',
  'goal/oiCode': 'string',
} as const satisfies Record<string, 'number' | 'boolean' | 'string'>;
export type ReservedPredicate = keyof typeof RESERVED_PREDICATES;

export function isReservedPredicate(name: string): name is ReservedPredicate {
  return Object.hasOwn(RESERVED_PREDICATES, name);
}

/** Whether a clause requires safety-rated input (its explicit setting, else by effect). */
export function requiresSafetyRated(clause: Pick<PhysicalClause, 'effect' | 'requireSafetyRated'>): boolean {
  return clause.requireSafetyRated ?? (clause.effect === 'deny' || clause.effect === 'audit-gap');
}
