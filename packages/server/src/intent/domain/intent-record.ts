export type IntentDecision = 'APPROVED' | 'ESCALATED' | 'DENIED';
export type IntentStatus = IntentDecision | 'APPROVED_AFTER_REVIEW' | 'DENIED_AFTER_REVIEW' | 'EXPIRED';

export interface ApprovalState {
  queue: 'standard' | 'catastrophic-review';
  status: 'pending' | 'approved' | 'denied' | 'expired';
  requiredApprovals: number;
  /** Approvals recorded so far (absent until the first human decision). */
  approvalsReceived?: number;
  expiresAt: string;
}

/** A stored intent: the request, the decision and everything later reads need (contract §4.7). */
export interface IntentRecord {
  tenantId: string;
  id: string;
  correlationId: string;
  principalId: string;
  actorId: string;
  targetSystem: string;
  status: IntentStatus;
  decision: IntentDecision;
  /** `PENDING` while an escalation waits for a human, else `DECIDED`. */
  reviewState: 'PENDING' | 'DECIDED';
  request: unknown;
  authorityDecision: Record<string, unknown>;
  hypotheses: unknown;
  execution: Record<string, unknown>;
  token: string | null;
  escalationId: string | null;
  approval: ApprovalState | null;
  createdAt: number;
  updatedAt: number;
}

/** One human decision on an escalation (approve or deny), as `intent_approvals` keeps it. */
export interface RecordedDecision {
  approvalId: string;
  decision: 'approve' | 'deny';
  /** `principalId` is who decided; `id` and `name` are what the body displayed. */
  approver: { principalId: string; id: string | null; name: string | null };
  rationale: string;
  decidedAt: string;
}
