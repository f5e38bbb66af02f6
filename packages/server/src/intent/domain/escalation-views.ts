import { approvalUrlOf } from '../../config/approval-url.js';
import { argsPreview, redactedArgs } from './args-redaction.js';
import type { ApprovalState, IntentRecord, IntentStatus, RecordedDecision } from './intent-record.js';

export type ApprovalStatus = ApprovalState['status'];

/** A matched rule as the decision lists it (contract §4.5). */
export interface RuleRef {
  id: string;
  effect: string;
  priority: number;
}

/** An escalation as the console's inbox lists it (contract §4.8, §14). */
export interface EscalationView {
  escalationId: string;
  intentId: string;
  queue: ApprovalState['queue'];
  status: ApprovalStatus;
  requiredApprovals: number;
  approvalsReceived: number;
  expiresAt: string;
  createdAt: string;
  actorId: string;
  targetSystem: string;
  proposedAction: string;
  riskScore: number | null;
  decidingRule: RuleRef | null;
  /** At most 256 characters of the JSON of args, secret-looking keys redacted; null without args. */
  argsPreview: string | null;
  approvalUrl: string;
}

/** `GET /authority/approvals/:escalationId`: the escalation, the intent it holds, the decisions so far. */
export interface EscalationDetail extends EscalationView {
  intent: {
    status: IntentStatus;
    /** The principal that submitted the intent: it may not approve it (separation of duties). */
    requestedBy: string;
    actor: { id: string; type: string };
    /** The whole of args with secret-looking keys redacted; null without args. */
    args: unknown;
    riskContext: unknown;
    decision: {
      decision: string;
      riskScore: number | null;
      rationale: unknown;
      gateTrace: unknown;
      matchedRules: unknown;
      intent: unknown;
    };
  };
  decisions: RecordedDecision[];
}

/**
 * The status of an escalation at `now`: a pending one whose deadline has passed reads as expired
 * even before the sweep has written it.
 */
export function escalationStatus(record: IntentRecord, now: number): ApprovalStatus | undefined {
  if (record.approval === null) return undefined;
  if (record.approval.status === 'pending' && Date.parse(record.approval.expiresAt) <= now) return 'expired';
  return record.approval.status;
}

/** The intent's status at `now`, with a lapsed escalation shown as EXPIRED. */
export function intentStatus(record: IntentRecord, now: number): IntentRecord['status'] {
  return escalationStatus(record, now) === 'expired' ? 'EXPIRED' : record.status;
}

export function riskScoreOf(record: IntentRecord): number {
  const score = record.authorityDecision.riskScore;
  return typeof score === 'number' ? score : 0;
}

interface StoredRequest {
  actor?: { id?: unknown; type?: unknown };
  proposedAction?: unknown;
  args?: unknown;
  riskContext?: unknown;
}

function isRuleRef(value: unknown): value is RuleRef {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return typeof rule.id === 'string' && typeof rule.effect === 'string' && typeof rule.priority === 'number';
}

/** The list item of an escalated intent; `approvalBase` is AUTHORITY_APPROVAL_URL. */
export function escalationView(record: IntentRecord, now: number, approvalBase: string): EscalationView {
  const approval = record.approval as ApprovalState;
  const escalationId = record.escalationId as string;
  const request = record.request as StoredRequest;
  const decidingRule = record.authorityDecision.decidingRule;
  return {
    escalationId,
    intentId: record.id,
    queue: approval.queue,
    status: escalationStatus(record, now) as ApprovalStatus,
    requiredApprovals: approval.requiredApprovals,
    approvalsReceived: approval.approvalsReceived ?? 0,
    expiresAt: approval.expiresAt,
    createdAt: new Date(record.createdAt).toISOString(),
    actorId: record.actorId,
    targetSystem: record.targetSystem,
    proposedAction: typeof request.proposedAction === 'string' ? request.proposedAction : '',
    riskScore: riskScoreOf(record),
    decidingRule: isRuleRef(decidingRule) ? decidingRule : null,
    argsPreview: argsPreview(request.args),
    approvalUrl: approvalUrlOf(approvalBase, escalationId),
  };
}

/** The detail page's read: everything an approver needs to understand who asks what, and why. */
export function escalationDetail(
  record: IntentRecord,
  decisions: RecordedDecision[],
  now: number,
  approvalBase: string,
): EscalationDetail {
  const request = record.request as StoredRequest;
  const decision = record.authorityDecision;
  return {
    ...escalationView(record, now, approvalBase),
    intent: {
      status: intentStatus(record, now),
      requestedBy: record.principalId,
      actor: { id: record.actorId, type: String(request.actor?.type ?? '') },
      args: redactedArgs(request.args),
      riskContext: request.riskContext ?? null,
      decision: {
        decision: String(decision.decision),
        riskScore: riskScoreOf(record),
        rationale: decision.rationale ?? [],
        gateTrace: decision.gateTrace ?? [],
        matchedRules: decision.matchedRules ?? [],
        intent: decision.intent ?? null,
      },
    },
    decisions,
  };
}
