import type { IntentRequest, IntentResponse } from '@authority-runtime/sdk/wire';

/**
 * Examples of `POST /intent` for the OpenAPI document: a request and the three outcomes (contract
 * §13.4). They are typed by the wire, and the document lint checks them against the schemas.
 */

interface Example<T> {
  summary: string;
  value: T;
}

const request: IntentRequest = {
  tenantId: 'acme',
  actor: { id: 'billing-agent', type: 'agent' },
  targetSystem: 'acme/payments',
  proposedAction: 'refund invoice INV-1042 to the original card',
  riskContext: { baseRiskScore: 20, touchesProduction: true },
  args: { invoiceId: 'INV-1042', amountCents: 4_900 },
};

const base = {
  intentId: 'int_01JQ8X4Z7M2V6N3R5T9W1Y0B2C',
  correlationId: 'billing-run-2026-03-01',
  audit: {
    entriesWritten: 2,
    latestHash: '9f2c4d0b7a51e3c8f6a2d19b04e7c35a8d6f1b2e0c9a7d4f3b5e8c1a2d6f9b0e',
  },
} as const;

const intent = { oiCode: 'OI-201', operationType: 'write', confidence: 0.82 } as const;

const approved: IntentResponse = {
  ...base,
  authorityDecision: {
    decision: 'APPROVED',
    riskScore: 28,
    policyCompliant: true,
    rationale: ['Rule refunds-under-100 allows refunds below 100.00'],
    gateTrace: ['kill_switch', 'rbac', 'structural', 'authority_rules'],
    matchedRules: [{ id: 'refunds-under-100', effect: 'ALLOW', priority: 50 }],
    decidingRule: { id: 'refunds-under-100', effect: 'ALLOW', priority: 50 },
    intent,
  },
  execution: { attempted: false, status: 'not_configured' },
  authorityDecisionToken:
    'eyJhbGciOiJFZERTQSIsImtpZCI6ImFjbWUtMSIsInR5cCI6IkpXVCJ9.eyJpbnRlbnRJZCI6Ii4uLiJ9.c2lnbmF0dXJl',
};

const escalated: IntentResponse = {
  ...base,
  authorityDecision: {
    decision: 'ESCALATED',
    riskScore: 64,
    policyCompliant: true,
    rationale: ['Rule large-refunds requires approval for refunds of 100.00 or more'],
    gateTrace: ['kill_switch', 'rbac', 'structural', 'authority_rules'],
    matchedRules: [{ id: 'large-refunds', effect: 'REQUIRE_APPROVAL', priority: 40 }],
    decidingRule: { id: 'large-refunds', effect: 'REQUIRE_APPROVAL', priority: 40 },
    intent,
  },
  execution: { attempted: false, status: 'skipped' },
  escalationId: 'esc_01JQ8X4Z9K3B7C5D2F8G6H1J0K',
  approvalUrl: 'https://console.example.org/approvals/esc_01JQ8X4Z9K3B7C5D2F8G6H1J0K',
  approval: {
    queue: 'standard',
    status: 'pending',
    requiredApprovals: 1,
    approvalsReceived: 0,
    expiresAt: '2026-03-02T09:15:00.000Z',
  },
};

const denied: IntentResponse = {
  ...base,
  authorityDecision: {
    decision: 'DENIED',
    riskScore: 91,
    policyCompliant: false,
    rationale: ['Rule no-refunds-to-new-cards denies refunds to a card added in the last 24 h'],
    gateTrace: ['kill_switch', 'rbac', 'structural', 'authority_rules'],
    matchedRules: [{ id: 'no-refunds-to-new-cards', effect: 'DENY', priority: 10 }],
    decidingRule: { id: 'no-refunds-to-new-cards', effect: 'DENY', priority: 10 },
    intent,
  },
  execution: { attempted: false, status: 'skipped' },
};

const example = <T>(summary: string, value: T): Record<string, Example<T>> => ({
  [summary.split(':')[0]?.toLowerCase() ?? 'example']: { summary, value },
});

/** By status (and `request` for the body). */
export const INTENT_EXAMPLES: Readonly<Record<string | number, Record<string, Example<unknown>>>> = {
  request: example('refund: an agent asks to refund an invoice', request),
  200: example('approved: a signed single-use token comes with the decision', approved),
  202: example('escalated: waiting for a human in the console', escalated),
  403: example('denied: a decision, not an error; no token', denied),
};
