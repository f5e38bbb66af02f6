/**
 * The physical authority decision (contract §9): built-in clauses, then the tenant policy, over a
 * structured goal, its classification and the attested physical state. Pure: time comes in as
 * `nowMs`, the ticket as a record.
 *
 * Hypotheses: the classified code plus the caller's `intent.oiCode` and `dagNode.oiCode`. The
 * tenant clauses are evaluated for each (its code fills `goal/oiCode` and meets
 * `appliesTo.oiCodes`); a clause fires when it fires for any hypothesis, and every hypothesis must
 * have an allow clause firing, so a caller's code can only add severity.
 *
 * Firing: deny and escalate clauses fire when every condition holds; a condition on a *failing*
 * predicate (read-predicate.ts), or on a value of another kind than the condition compares (the
 * string "true" or the number 1 where `eq true` expects a boolean, a string for `lt`), counts as
 * holding: the hazard is assumed present. An allow clause fires when every condition holds on
 * trusted values of the kind it compares; a failing or mismatched predicate never satisfies it. An
 * audit-gap clause fires when any predicate it names is stale, missing, unavailable or failing,
 * never on the values it reads (contract §9: it reports a gap in the evidence).
 * Untrustworthy input therefore always moves the outcome toward the more severe side.
 *
 * Outcome, most severe first:
 *   1. a deny clause fired          → DENY 422, deciding clause = the first firing deny clause;
 *   2. an audit-gap clause fired    → DENY 423 (`auditGap`), the first firing audit-gap clause;
 *   3. some hypothesis has no allow → DENY 422 by `default-deny`;
 *   4. an escalate clause fired     → ESCALATE, the first firing escalate clause, unless an approved
 *                                     operator ticket for this goal is presented: then ALLOW;
 *   5. otherwise                    → ALLOW, the first firing allow clause.
 * "First" is policy order with the built-ins ahead of the tenant's clauses, so only the reported
 * clause id (not the outcome) depends on the order of the clauses.
 */

import {
  type CompiledClause,
  type CompiledPhysicalPolicy,
  defaultCompiledPolicy,
} from './compile-physical-policy.js';
import { ALLOW_WHEN_CLEAR } from './default-physical-policy.js';
import { classificationHypotheses } from './hypotheses.js';
import { checkTicketRedeemable, type OperatorTicket } from './operator-ticket.js';
import {
  BUILT_IN_CLAUSES,
  type BuiltInClauseId,
  type ClauseCondition,
  type ClauseEffect,
  DEFAULT_DENY_CLAUSE_ID,
  REPLAY_WINDOW_MS,
  type ScalarValue,
} from './physical-clause.js';
import type { ClassificationResult, PhysicalState, SafeDefault, StructuredGoal } from './physical-types.js';
import { type PredicateReading, type ReservedValues, readPredicate } from './read-predicate.js';

export type PhysicalOutcome = 'ALLOW' | 'ESCALATE' | 'DENY';

export interface PhysicalEvaluationInput {
  /** The tenant's active policy, or the compiled default. */
  policy: CompiledPhysicalPolicy;
  goal: StructuredGoal;
  /** The server's classification of `goal` (the server always classifies). */
  classification: ClassificationResult;
  /** The caller's `intent.oiCode` and `dagNode.oiCode`, evaluated as extra hypotheses. */
  callerOiCodes?: readonly (string | undefined)[];
  /** The caller's `claims.safetyBit` (omitted counts as false) and `claims.safetyCitations`. */
  callerSafetyBit?: boolean;
  callerSafetyCitations?: readonly string[];
  physicalState?: PhysicalState;
  /** The request's `dagNode.safeDefault`. */
  requestSafeDefault: SafeDefault;
  nowMs: number;
  killSwitchEnabled: boolean;
  /** The tenant's audit chain has a break nobody acknowledged. */
  unacknowledgedChainBreak: boolean;
  /** The request's `operatorTicketId` and the tenant's ticket stored under it (undefined: none). */
  operatorTicketId?: string | null;
  operatorTicket?: OperatorTicket;
}

export interface PhysicalDecision {
  decision: PhysicalOutcome;
  /** 200 for ALLOW and ESCALATE; 422 for DENY; 423 when an audit-gap clause decided. */
  httpStatus: 200 | 422 | 423;
  auditGap: boolean;
  /** The deciding clause (or `default-deny`). */
  clauseId: string;
  /** Every firing clause in policy order (built-ins first), plus `default-deny` when it decided. */
  clauseIds: string[];
  safeDefault: SafeDefault;
  reasons: string[];
  /** The classified code (the token's `service.oiCode`). */
  oiCode: string;
  hypotheses: string[];
  safetyBit: boolean;
  safetyCitations: string[];
  /** The classifier's explanation when `classifier-fail-closed` decided, else null. */
  explanation: string | null;
  /** Set on an ALLOW that redeems an approved ticket: the issuance consumes it. */
  operatorTicketId: string | null;
}

interface Firing {
  id: string;
  effect: ClauseEffect;
  order: number;
  safeDefault: SafeDefault;
  /** The clause's own `citations`: named in a DENY's details, never in a token. */
  citations: readonly string[];
}

function compare(
  op: ClauseCondition['op'],
  actual: ScalarValue,
  expected: ClauseCondition['value'],
): boolean {
  switch (op) {
    case 'eq':
      return actual === expected;
    case 'neq':
      return actual !== expected;
    case 'lt':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
    case 'lte':
      return typeof actual === 'number' && typeof expected === 'number' && actual <= expected;
    case 'gt':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case 'gte':
      return typeof actual === 'number' && typeof expected === 'number' && actual >= expected;
    case 'in':
      return Array.isArray(expected) && expected.includes(actual);
    case 'present':
      return true;
    case 'absent':
      return false;
  }
}

/**
 * Whether a value is of the kind the condition compares: a number for `lt`..`gte`, the kind of
 * `value` for `eq` and `neq`, the kind of one of the listed values for `in`; any for `present` and
 * `absent`.
 */
function comparable(
  op: ClauseCondition['op'],
  actual: ScalarValue,
  expected: ClauseCondition['value'],
): boolean {
  switch (op) {
    case 'present':
    case 'absent':
      return true;
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return typeof actual === 'number';
    case 'in':
      return Array.isArray(expected) && expected.some((item) => typeof item === typeof actual);
    case 'eq':
    case 'neq':
      return typeof actual === typeof expected;
  }
}

/** A trusted value the condition cannot compare: it is read like a failing predicate (fail-closed). */
function mismatched(condition: ClauseCondition, reading: PredicateReading): boolean {
  return (
    !reading.failing &&
    reading.status === 'ok' &&
    reading.value !== undefined &&
    !comparable(condition.op, reading.value, condition.value)
  );
}

function conditionHolds(
  condition: ClauseCondition,
  reading: PredicateReading,
  restrictive: boolean,
): boolean {
  if (reading.failing || mismatched(condition, reading)) return restrictive;
  if (reading.status !== 'ok' || reading.value === undefined) return condition.op === 'absent';
  return compare(condition.op, reading.value, condition.value);
}

function applies(compiled: CompiledClause, goal: StructuredGoal, oiCode: string): boolean {
  if (compiled.actorKinds !== null && !compiled.actorKinds.has(goal.actor.kind)) return false;
  if (compiled.schemas !== null && !compiled.schemas.test(goal.schema)) return false;
  if (compiled.oiCodes !== null && !compiled.oiCodes.test(oiCode)) return false;
  return true;
}

/** Whether the clause fires for one hypothesis, and the facts that made it fire. */
function clauseFires(
  compiled: CompiledClause,
  input: PhysicalEvaluationInput,
  reserved: ReservedValues,
): { fires: boolean; facts: string[] } {
  const { clause } = compiled;
  const state = input.physicalState ?? {};
  const restrictive = clause.effect !== 'allow';
  const options = {
    requireSafetyRated: compiled.requireSafetyRated,
    maxStateAgeMs: clause.maxStateAgeMs,
    nowMs: input.nowMs,
  };
  const conditions = clause.when ?? [];
  const readings = conditions.map((condition) =>
    readPredicate(state, reserved, condition.predicate, options),
  );
  // An audit-gap clause reports missing evidence, never a state: it fires when a predicate it names
  // is stale, missing or unavailable (or, when it requires safety-rated input, untrusted or
  // unrated), whatever the values of the predicates it can read.
  if (clause.effect === 'audit-gap') {
    const gaps = readings.filter(
      (reading) => reading.failing || reading.status === 'missing' || reading.status === 'unavailable',
    );
    return gaps.length > 0
      ? { fires: true, facts: gaps.map((r) => `${r.account}: audit gap`) }
      : { fires: false, facts: [] };
  }
  const holds = conditions.every((condition, i) =>
    conditionHolds(condition, readings[i] as PredicateReading, restrictive),
  );
  if (!holds) return { fires: false, facts: [] };
  const facts = readings.map((reading, i) => {
    if (reading.failing) return `${reading.account}, counted as the hazard being present (fail-closed)`;
    const condition = conditions[i] as ClauseCondition;
    return mismatched(condition, reading)
      ? `${reading.account}, not comparable with ${condition.op} ${JSON.stringify(condition.value)}: counted as the hazard being present (fail-closed)`
      : reading.account;
  });
  return { fires: true, facts };
}

function builtInFirings(input: PhysicalEvaluationInput): { firings: Firing[]; reasons: string[] } {
  const fired = new Map<BuiltInClauseId, string>();
  if (input.killSwitchEnabled) fired.set('kill-switch', "the tenant's kill switch is on");
  const source = input.goal.sourceTimestampMs;
  if (source !== undefined && !(Math.abs(input.nowMs - source) <= REPLAY_WINDOW_MS)) {
    fired.set(
      'stale-goal',
      `sourceTimestampMs is ${input.nowMs - source} ms away from the server clock (window ${REPLAY_WINDOW_MS} ms)`,
    );
  }
  if (input.classification.failClosed) {
    fired.set('classifier-fail-closed', input.classification.explanation ?? 'the classifier failed closed');
  }
  if (input.unacknowledgedChainBreak) {
    fired.set('audit-gap-on-chain-break', "the tenant's audit chain has an unacknowledged break");
  }
  const firings: Firing[] = [];
  const reasons: string[] = [];
  BUILT_IN_CLAUSES.forEach((builtIn, order) => {
    const fact = fired.get(builtIn.id);
    if (fact === undefined) return;
    firings.push({
      id: builtIn.id,
      effect: builtIn.effect,
      order: order - BUILT_IN_CLAUSES.length,
      safeDefault: builtIn.safeDefault === 'request' ? input.requestSafeDefault : builtIn.safeDefault,
      citations: [],
    });
    reasons.push(`${builtIn.id} (${builtIn.effect}): ${fact}`);
  });
  return { firings, reasons };
}

function firstOf(firings: readonly Firing[], effect: ClauseEffect): Firing | undefined {
  return firings.find((firing) => firing.effect === effect);
}

export function evaluatePhysical(input: PhysicalEvaluationInput): PhysicalDecision {
  const { classification } = input;
  const hypotheses = classificationHypotheses(classification.oiCode, input.callerOiCodes ?? []);
  const ticket =
    input.operatorTicketId === undefined || input.operatorTicketId === null
      ? undefined
      : checkTicketRedeemable(
          input.operatorTicket?.ticketId === input.operatorTicketId ? input.operatorTicket : undefined,
          { oiCode: classification.oiCode, goal: input.goal },
          input.nowMs,
        );

  const { firings, reasons } = builtInFirings(input);
  const tagged = hypotheses.length > 1;
  const tenantFired = new Map<number, Firing>();
  let everyHypothesisAllowed = true;
  for (const oiCode of hypotheses) {
    const reserved: ReservedValues = {
      'classifier/confidence': classification.confidence,
      'classifier/failClosed': classification.failClosed,
      'classifier/safetyBit': classification.safetyBit,
      'goal/oiCode': oiCode,
    };
    let allowed = false;
    for (const compiled of input.policy.clauses) {
      if (!applies(compiled, input.goal, oiCode)) continue;
      const { fires, facts } = clauseFires(compiled, input, reserved);
      if (!fires) continue;
      const { clause } = compiled;
      if (clause.effect === 'allow') allowed = true;
      const prefix = tagged ? `[${oiCode}] ` : '';
      const because = facts.length === 0 ? 'fired' : facts.join('; ');
      reasons.push(`${prefix}${clause.id} (${clause.effect}): ${because}`);
      if (!tenantFired.has(compiled.index)) {
        tenantFired.set(compiled.index, {
          id: clause.id,
          effect: clause.effect,
          order: compiled.index,
          safeDefault: clause.safeDefault,
          citations: clause.citations ?? [],
        });
      }
    }
    if (!allowed) {
      everyHypothesisAllowed = false;
      reasons.push(`${tagged ? `[${oiCode}] ` : ''}no allow clause fired`);
    }
  }
  firings.push(...[...tenantFired.values()].sort((a, b) => a.order - b.order));

  // Contract §9: the OR of the caller's bit (omitted counts as false) and the classifier's, and
  // their citations merged; a DENY adds the citations of the restrictive clauses that fired.
  const safetyCitations = [
    ...new Set([...classification.safetyCitations, ...(input.callerSafetyCitations ?? [])]),
  ].sort();
  const safetyBit = (input.callerSafetyBit ?? false) || classification.safetyBit;

  // The default policy's `allow-when-clear` is ALLOW "when no other clause fires" (contract §9): it
  // decides an ALLOW, but is not reported as firing beside a clause that did.
  const fallback =
    input.policy === defaultCompiledPolicy() && firings.some((firing) => firing.id !== ALLOW_WHEN_CLEAR);
  const clauseIds = firings.map((firing) => firing.id).filter((id) => !fallback || id !== ALLOW_WHEN_CLEAR);
  const base = { oiCode: classification.oiCode, hypotheses, safetyBit, safetyCitations, reasons };
  const deny = (deciding: Firing | undefined, auditGap: boolean): PhysicalDecision => {
    const clauseId = deciding?.id ?? DEFAULT_DENY_CLAUSE_ID;
    // A refusal also cites the safety categories of the restrictive clauses that fired.
    const cited = new Set(safetyCitations);
    for (const firing of firings) {
      if (firing.effect === 'deny' || firing.effect === 'audit-gap')
        for (const c of firing.citations) cited.add(c);
    }
    return {
      ...base,
      safetyBit: safetyBit || cited.size > 0,
      safetyCitations: [...cited].sort(),
      decision: 'DENY',
      httpStatus: auditGap ? 423 : 422,
      auditGap,
      clauseId,
      clauseIds: deciding === undefined ? [...clauseIds, DEFAULT_DENY_CLAUSE_ID] : clauseIds,
      safeDefault: deciding?.safeDefault ?? input.requestSafeDefault,
      explanation: clauseId === 'classifier-fail-closed' ? classification.explanation : null,
      operatorTicketId: null,
    };
  };

  const denying = firstOf(firings, 'deny');
  if (denying !== undefined) return deny(denying, false);
  const auditGap = firstOf(firings, 'audit-gap');
  if (auditGap !== undefined) return deny(auditGap, true);
  if (!everyHypothesisAllowed) return deny(undefined, false);

  const allowing = firstOf(firings, 'allow') as Firing;
  const escalating = firstOf(firings, 'escalate');
  if (escalating !== undefined && ticket === undefined) {
    return {
      ...base,
      decision: 'ESCALATE',
      httpStatus: 200,
      auditGap: false,
      clauseId: escalating.id,
      clauseIds,
      safeDefault: escalating.safeDefault,
      explanation: null,
      operatorTicketId: null,
    };
  }
  if (ticket !== undefined) {
    reasons.push(
      escalating === undefined
        ? `operator ticket ${ticket.ticketId} redeemed (no escalation was needed)`
        : `operator ticket ${ticket.ticketId} approved by ${ticket.approvedBy ?? 'an operator'} answers the escalation`,
    );
  }
  return {
    ...base,
    decision: 'ALLOW',
    httpStatus: 200,
    auditGap: false,
    clauseId: allowing.id,
    clauseIds,
    safeDefault: input.requestSafeDefault,
    explanation: null,
    operatorTicketId: ticket?.ticketId ?? null,
  };
}

export interface PhysicalDenyDetails {
  decision: 'DENY';
  clauseId: string;
  clauseIds: string[];
  safeDefault: SafeDefault;
  safetyBit: boolean;
  safetyCitations: string[];
  explanation?: string | null;
}

/** `details` of the 422/423 `policy_denied` envelope for a DENY decision. */
export function physicalDenyDetails(decision: PhysicalDecision): PhysicalDenyDetails {
  if (decision.decision !== 'DENY') throw new Error(`not a DENY decision (${decision.decision})`);
  const details: PhysicalDenyDetails = {
    decision: 'DENY',
    clauseId: decision.clauseId,
    clauseIds: decision.clauseIds,
    safeDefault: decision.safeDefault,
    safetyBit: decision.safetyBit,
    safetyCitations: decision.safetyCitations,
  };
  if (decision.clauseId === 'classifier-fail-closed') details.explanation = decision.explanation;
  return details;
}
