import { v7 as uuidv7 } from 'uuid';
import type { AuditEvent } from '../../chain/audit-entry.js';
import { approvalUrlOf } from '../../config/approval-url.js';
import { canonicalJson, sha256Hex } from '../../crypto/canonical-json.js';
import type { ClaimedKey } from '../../idempotency/idempotency.js';
import type { Principal } from '../../identity/principal.js';
import type { MintedToken } from '../../tokens/decision-token.js';
import type { DecisionEvent } from '../../webhooks/events.js';
import { argsPreview } from '../domain/args-redaction.js';
import type { BudgetClaim } from '../domain/budgets.js';
import { budgetExceededEvaluation, type IntentEvaluation } from '../domain/evaluate-intent.js';
import { tokenIssuedEvent } from '../domain/intent-events.js';
import type { ApprovalState, IntentRecord } from '../domain/intent-record.js';
import type { IntentRequest } from '../domain/intent-request.js';
import type { ThresholdSettings } from '../domain/thresholds.js';
import type { IntentResponse } from './decision-loop.js';
import { type ExecutionPlan, initialExecution } from './execution-plan.js';

const STATUS_CODE = { APPROVED: 200, ESCALATED: 202, DENIED: 403 } as const;
/** One webhook event per transition (contract §4.6). */
const DECISION_EVENT = {
  APPROVED: 'decision.completed',
  ESCALATED: 'decision.escalated',
  DENIED: 'decision.denied',
} as const;

/** A decided intent waiting for its commit. */
export interface PendingDecision {
  intent: IntentRecord;
  events: AuditEvent[];
  /** The decision's webhook event, written to the outbox in the same commit. */
  webhook: DecisionEvent;
  /** The request's claim of its `Idempotency-Key`, completed in the commit. */
  idempotencyKey: ClaimedKey | undefined;
  statusCode: number;
  response: Omit<IntentResponse, 'audit'>;
  /** APPROVED only: the budget units to take in the commit, each re-checked there (§16). */
  budgetClaims: BudgetClaim[];
  /**
   * The same decision had `claim` been used up (`count` APPROVED already): the budget's effect,
   * no token. The signed token of the approval is discarded, never returned.
   */
  exceeded(claim: BudgetClaim, count: number): PendingDecision;
}

/** What a decision is made of before it is recorded. */
export interface DecisionFacts {
  principal: Principal;
  request: IntentRequest;
  evaluation: IntentEvaluation;
  thresholds: ThresholdSettings;
  now: number;
  intentId: string;
  correlationId: string;
  /** APPROVED only. */
  minted: MintedToken | undefined;
  plan: ExecutionPlan | undefined;
  idempotencyKey: ClaimedKey | undefined;
  /** AUTHORITY_APPROVAL_URL without a trailing slash. */
  approvalUrlBase: string;
}

/**
 * The records of one decision: the intent row, its audit entries (received, decided, token
 * issued), its webhook event and the response, as `POST /intent` commits them.
 */
export function pendingDecision(facts: DecisionFacts): PendingDecision {
  const {
    principal,
    request,
    evaluation,
    thresholds,
    now,
    intentId,
    correlationId,
    minted,
    plan,
    idempotencyKey,
    approvalUrlBase,
  } = facts;
  const tenantId = principal.tenantId;
  const escalationId = evaluation.outcome === 'ESCALATED' ? uuidv7() : undefined;
  const approval: ApprovalState | undefined =
    evaluation.outcome === 'ESCALATED'
      ? {
          queue: evaluation.queue,
          status: 'pending',
          requiredApprovals: evaluation.queue === 'catastrophic-review' ? 2 : 1,
          expiresAt: new Date(now + thresholds.approvalTtlSeconds * 1000).toISOString(),
        }
      : undefined;
  const { primary, alternates } = evaluation.interpretation;
  const authorityDecision: Record<string, unknown> = {
    decision: evaluation.outcome,
    riskScore: evaluation.riskScore,
    policyCompliant: evaluation.policyCompliant,
    rationale: evaluation.rationale,
    gateTrace: evaluation.gateTrace,
    matchedRules: evaluation.matchedRules,
    decidingRule: evaluation.decidingRule,
    intent: {
      oiCode: primary.oiCode,
      operationType: primary.operationType,
      confidence: primary.confidence,
    },
    ...(evaluation.explanation ? { explanation: evaluation.explanation } : {}),
  };
  const execution = plan ? initialExecution(plan) : { attempted: false, status: 'skipped' };

  const base = { correlationId, intentId, actorId: request.actor.id, actorType: request.actor.type };
  const events: AuditEvent[] = [
    {
      ...base,
      eventType: 'intent.received',
      payload: {
        targetSystem: request.targetSystem,
        proposedAction: request.proposedAction,
        principalId: principal.id,
        argsHash: request.args === undefined ? null : sha256Hex(canonicalJson(request.args)),
        argsPreview: argsPreview(request.args),
        riskContext: request.riskContext,
        ...(idempotencyKey ? { idempotencyKey: idempotencyKey.key } : {}),
      },
    },
    {
      ...base,
      eventType: 'intent.decided',
      payload: {
        targetSystem: request.targetSystem,
        decision: evaluation.outcome,
        effect: evaluation.effect,
        riskScore: evaluation.riskScore,
        matchedRules: evaluation.matchedRules,
        decidingRule: evaluation.decidingRule,
        gateTrace: evaluation.gateTrace,
        hypotheses: { primary, alternates },
        ...(evaluation.floor.matched
          ? { floor: { pattern: evaluation.floor.pattern, location: evaluation.floor.location } }
          : {}),
        ...(approval ? { escalationId, approval } : {}),
      },
    },
  ];
  if (minted) events.push(tokenIssuedEvent(base, request.targetSystem, minted));

  return {
    budgetClaims: minted ? evaluation.budgetClaims : [],
    exceeded: (claim, count) =>
      pendingDecision({
        ...facts,
        evaluation: budgetExceededEvaluation(evaluation, claim, request.actor.id, count),
        minted: undefined,
        plan: undefined,
      }),
    intent: {
      tenantId,
      id: intentId,
      correlationId,
      principalId: principal.id,
      actorId: request.actor.id,
      targetSystem: request.targetSystem,
      status: evaluation.outcome,
      decision: evaluation.outcome,
      reviewState: evaluation.outcome === 'ESCALATED' ? 'PENDING' : 'DECIDED',
      request,
      authorityDecision,
      hypotheses: [primary, ...alternates],
      execution,
      token: minted?.token ?? null,
      escalationId: escalationId ?? null,
      approval: approval ?? null,
      createdAt: now,
      updatedAt: now,
    },
    events,
    webhook: {
      event: DECISION_EVENT[evaluation.outcome],
      intentId,
      decision: evaluation.outcome,
      riskScore: evaluation.riskScore,
      occurredAt: now,
    },
    idempotencyKey,
    statusCode: STATUS_CODE[evaluation.outcome],
    response: {
      intentId,
      correlationId,
      authorityDecision,
      execution,
      ...(minted ? { authorityDecisionToken: minted.token } : {}),
      ...(escalationId && approval
        ? { escalationId, approvalUrl: approvalUrlOf(approvalUrlBase, escalationId), approval }
        : {}),
    },
  };
}
