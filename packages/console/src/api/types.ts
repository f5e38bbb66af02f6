/** The shapes of the API answers the console reads (contract §4, §6, §9, §14). */

export interface RuleRef {
  id: string;
  effect: string;
  priority: number;
}

export type EscalationStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface EscalationItem {
  escalationId: string;
  intentId: string;
  queue: 'standard' | 'catastrophic-review';
  status: EscalationStatus;
  requiredApprovals: number;
  approvalsReceived: number;
  expiresAt: string;
  createdAt: string;
  actorId: string;
  targetSystem: string;
  proposedAction: string;
  riskScore: number | null;
  decidingRule: RuleRef | null;
  argsPreview: string | null;
  approvalUrl: string;
}

export interface RecordedDecision {
  approvalId: string;
  decision: 'approve' | 'deny';
  approver: { principalId: string; id: string | null; name: string | null };
  rationale: string;
  decidedAt: string;
}

export interface EscalationDetail extends EscalationItem {
  intent: {
    status: string;
    requestedBy: string;
    actor: { id: string; type: string };
    args: unknown;
    riskContext: unknown;
    decision: {
      decision: string;
      riskScore: number | null;
      rationale: string[];
      gateTrace: string[];
      matchedRules: RuleRef[];
      intent: { oiCode: string; operationType: string; confidence: number } | null;
    };
  };
  decisions: RecordedDecision[];
}

export interface ApprovalAnswer {
  status: EscalationStatus;
  approvalsReceived: number;
  requiredApprovals: number;
}

export type TicketStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'consumed';

export interface StructuredGoal {
  schema: string;
  verb: string;
  object?: string;
  actor: { kind: string; identifier: string };
  [key: string]: unknown;
}

export interface Ticket {
  ticketId: string;
  status: TicketStatus;
  approvedBy: string | null;
  approvedAtMs: number | null;
  rejectionReason: string | null;
  expiresAtMs: number;
  intent: { oiCode: string; structuredGoal: StructuredGoal };
  createdAtMs: number;
  approvalUrl: string;
  operator: string | null;
  request: {
    actorIdentity: string;
    actorKind: string;
    safetyBit: boolean;
    safetyCitations: string[];
    clauseIds: string[];
    safeDefault: string;
  } | null;
}

export interface ExplanationEntry {
  ruleId: string;
  effect: string;
  failed:
    | { kind: 'binding'; binding: string }
    | { kind: 'condition'; path: string; op: string; reason: string }
    | { kind: string; [key: string]: unknown };
}

export interface AuthorityDecision {
  decision: string;
  riskScore: number;
  policyCompliant: boolean;
  rationale: string[];
  gateTrace: string[];
  matchedRules: RuleRef[];
  decidingRule: RuleRef | null;
  intent: { oiCode: string; operationType: string; confidence: number };
  explanation?: ExplanationEntry[];
}

export interface IntentView {
  intentId: string;
  correlationId: string;
  request: {
    actor: { id: string; type: string };
    targetSystem: string;
    proposedAction: string;
    args?: unknown;
    riskContext: unknown;
  };
  status: string;
  authorityDecision: AuthorityDecision;
  hypotheses: unknown;
  approval?: {
    queue: string;
    status: string;
    requiredApprovals: number;
    approvalsReceived?: number;
    expiresAt: string;
    escalationId: string;
  };
  execution: Record<string, unknown>;
  tokenIssued: boolean;
  auditEntries?: Array<{ index: number; eventType: string; entryHash: string }>;
  createdAt: string;
}

export interface TimelineEvent {
  index: number;
  eventType: string;
  actorId: string;
  targetSystem: string | null;
  intentId: string | null;
  correlationId: string;
  summary: string;
  createdAt: string;
  entryHash: string;
}

export interface AuditEntry {
  index: number;
  tenantId: string;
  correlationId: string | null;
  intentId: string | null;
  actorId: string;
  actorType: string;
  eventType: string;
  payload: unknown;
  previousHash: string;
  entryHash: string;
  createdAt: string;
}

export interface PolicyVersion {
  id: string;
  version: number;
  active: boolean;
  rules: Array<Record<string, unknown>>;
  packs: string[];
  createdAt: string;
  createdBy: string;
  activatedAt: string | null;
  /** The review state (contract §16): draft, approved, rejected, active or inactive. */
  status?: string;
  author?: string;
  reviews?: PolicyReview[];
  requiredApprovals?: number;
}

/** The tenant's review setting (contract §16), as `GET /authority/policy/versions` answers it. */
export interface ReviewSetting {
  required: boolean;
  approvals: number;
}

export interface PolicyReview {
  principalId: string;
  decision: 'approve' | 'reject';
  comment: string;
  createdAt: string;
}

export interface SimulatedDecision {
  decision: string;
  decidingRule: { id: string; effect: string; priority: number };
}

export interface SimulationResult {
  evaluated: number;
  changed: number;
  transitions: Record<string, number>;
  changes: Array<{
    intentId: string;
    createdAt: string;
    before: SimulatedDecision;
    after: SimulatedDecision;
  }>;
  durationMs: number;
}

export interface PolicyIssue {
  path: string;
  message: string;
  ruleId?: string;
  field?: string;
}
