import type { IntentRequest, IntentResponse, PolicySaveRequest } from '@authority-runtime/sdk/wire';

/**
 * Examples for the OpenAPI document (contract §13.4): a policy, and `POST /intent` under it with
 * each of the three outcomes. They are answers the service gave: `test/http/openapi-examples.test.ts`
 * saves the policy, submits each request and checks that the decision, the status and the shape
 * of every answer are still the ones shown (the ids, hashes and the token are those of that run).
 */

export interface Example<T> {
  summary: string;
  value: T;
}

export const EXAMPLE_POLICY: PolicySaveRequest = {
  activate: true,
  replacePacks: true,
  rules: [
    {
      id: 'protect-main',
      description: 'Nobody deletes the main branch',
      effect: 'DENY',
      priority: 10,
      conditions: {
        all: [
          { path: 'intent.oiCode', op: 'EQ', value: 'OI-101' },
          { path: 'args.branch', op: 'EQ', value: 'main' },
        ],
      },
    },
    {
      id: 'production-deploys',
      description: 'A human approves every deployment to production',
      effect: 'REQUIRE_APPROVAL',
      priority: 40,
      conditions: {
        all: [
          { path: 'intent.oiCode', op: 'EQ', value: 'OI-104' },
          { path: 'risk.production', op: 'EQ', value: true },
        ],
      },
    },
    {
      id: 'merge-reviewed',
      description: 'Pull requests with two approving reviews merge without a human',
      effect: 'ALLOW',
      priority: 50,
      conditions: {
        all: [
          { path: 'intent.oiCode', op: 'EQ', value: 'OI-105' },
          { path: 'args.approvals', op: 'GTE', value: 2 },
        ],
      },
    },
  ],
};

const requestOf = (
  proposedAction: string,
  riskContext: IntentRequest['riskContext'],
  args: Record<string, unknown>,
): IntentRequest => ({
  tenantId: 'acme',
  actor: { id: 'release-agent', type: 'agent' },
  targetSystem: 'acme/payments-api',
  proposedAction,
  riskContext,
  args,
});

const GATES: IntentResponse['authorityDecision']['gateTrace'] = [
  'kill_switch',
  'rbac',
  'structural',
  'authority_rules',
];

/** One outcome: the request, the status it answered and its body. */
export interface IntentExample {
  summary: string;
  request: IntentRequest;
  status: 200 | 202 | 403;
  response: IntentResponse;
}

const approved: IntentExample = {
  summary: 'approved: a reviewed merge; a signed single-use token comes with the decision',
  request: requestOf(
    'merge pull request 482 into main',
    { baseRiskScore: 20 },
    { pullRequest: 482, approvals: 2 },
  ),
  status: 200,
  response: {
    intentId: '01a225a7-64e1-76e3-9c85-a7a3c9342ba0',
    correlationId: '01a225a7-64e1-76e3-9c85-a9a55625a0e2',
    authorityDecision: {
      decision: 'APPROVED',
      riskScore: 20,
      policyCompliant: true,
      rationale: [
        'interpreted as OI-105 (write, confidence 0.9)',
        'rule merge-reviewed matched: ALLOW',
        'most severe wins: ALLOW (deciding rule merge-reviewed)',
      ],
      gateTrace: GATES,
      matchedRules: [{ id: 'merge-reviewed', effect: 'ALLOW', priority: 50 }],
      decidingRule: { id: 'merge-reviewed', effect: 'ALLOW', priority: 50 },
      intent: { oiCode: 'OI-105', operationType: 'write', confidence: 0.9 },
    },
    audit: {
      entriesWritten: 3,
      latestHash: '85d891c7a9b13a8b71943b384390956408878676522613eadc5b828ecda7fd16',
    },
    execution: { attempted: false, status: 'not_configured' },
    authorityDecisionToken:
      'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCIsImtpZCI6ImFjbWUtMTc2NzIyNTYwMC1EVUtKVFVMVCJ9.' +
      'eyJpbnRlbnRJZCI6IjAxYTIyNWE3LTY0ZTEtNzZlMy05Yzg1LWE3YTNjOTM0MmJhMCIsInRlbmFudElkIjoiYWNtZSIsImFkYXB0ZXJJZCI6ImV4dGVybmFsIiwiYWRhcHRlclRhcmdldCI6ImFjbWUvcGF5bWVudHMtYXBpIiwidGFyZ2V0U3lzdGVtIjoiYWNtZS9wYXltZW50cy1hcGkiLCJwcm9wb3NlZEFjdGlvbiI6Im1lcmdlIHB1bGwgcmVxdWVzdCA0ODIgaW50byBtYWluIiwiZGVjaXNpb24iOiJBUFBST1ZFRCIsImlzc3VlZEF0IjoiMjAyNi0wMS0wMVQwMDowMDowMC4wMDBaIiwiZXhwaXJlc0F0IjoiMjAyNi0wMS0wMVQwMDowNTowMC4wMDBaIiwibm9uY2UiOiJYZWhIbmstQkNWMVhiYXVKMFVQYTBBIiwiaXNzIjoic2VydmljZS1hdXRob3JpdHkiLCJhdWQiOiJleHRlcm5hbCIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjoxNzY3MjI1OTAwfQ.' +
      'YyEFW3GuAVuvddBqs_AsukAoRMMONRDVzUg0v7d7S3SqydumUEBzjPWJADgL_RJvUYHbWFgvcti6OrGQ4CcQAA',
  },
};

const escalated: IntentExample = {
  summary: 'escalated: a production deployment waits for a human in the console',
  request: requestOf(
    'deploy release 2.4.1 to production',
    { baseRiskScore: 20, touchesProduction: true },
    { release: '2.4.1', environment: 'production' },
  ),
  status: 202,
  response: {
    intentId: '01a225a7-651e-764b-bed2-46c7614cf2d0',
    correlationId: '01a225a7-651e-764b-bed2-4ab30c8522f1',
    authorityDecision: {
      decision: 'ESCALATED',
      riskScore: 40,
      policyCompliant: true,
      rationale: [
        'interpreted as OI-104 (write, confidence 0.9)',
        'rule production-deploys matched: REQUIRE_APPROVAL',
        'most severe wins: REQUIRE_APPROVAL (deciding rule production-deploys)',
      ],
      gateTrace: GATES,
      matchedRules: [{ id: 'production-deploys', effect: 'REQUIRE_APPROVAL', priority: 40 }],
      decidingRule: { id: 'production-deploys', effect: 'REQUIRE_APPROVAL', priority: 40 },
      intent: { oiCode: 'OI-104', operationType: 'write', confidence: 0.9 },
    },
    audit: {
      entriesWritten: 2,
      latestHash: 'd42eda7c71b089c480571f79b68d8ea6b9d7bc8928215923eac7fbb14ecee45d',
    },
    execution: { attempted: false, status: 'skipped' },
    escalationId: '01a225a7-651e-764b-bed2-4c2ce62705f1',
    approvalUrl: 'https://authority.example.com/console/approvals/01a225a7-651e-764b-bed2-4c2ce62705f1',
    approval: {
      queue: 'standard',
      status: 'pending',
      requiredApprovals: 1,
      expiresAt: '2026-01-01T01:00:00.000Z',
    },
  },
};

const denied: IntentExample = {
  summary: 'denied: deleting the main branch; a decision, not an error, and no token',
  request: requestOf('delete branch main', { baseRiskScore: 20 }, { branch: 'main' }),
  status: 403,
  response: {
    intentId: '01a225a7-6595-72d4-87c1-bde9ed938a76',
    correlationId: '01a225a7-6595-72d4-87c1-c0057fafbde4',
    authorityDecision: {
      decision: 'DENIED',
      riskScore: 20,
      policyCompliant: true,
      rationale: [
        'interpreted as OI-101 (write, confidence 0.9)',
        'rule protect-main matched: DENY',
        'most severe wins: DENY (deciding rule protect-main)',
      ],
      gateTrace: GATES,
      matchedRules: [{ id: 'protect-main', effect: 'DENY', priority: 10 }],
      decidingRule: { id: 'protect-main', effect: 'DENY', priority: 10 },
      intent: { oiCode: 'OI-101', operationType: 'write', confidence: 0.9 },
    },
    audit: {
      entriesWritten: 2,
      latestHash: '480a0e42bf19a3a0f20bb3609c6344dbc6ccdc55f007dff90738d5de27adb0e5',
    },
    execution: { attempted: false, status: 'skipped' },
  },
};

export const INTENT_EXAMPLES: readonly IntentExample[] = [approved, escalated, denied];

const keyOf = (summary: string) => summary.split(':')[0] ?? 'example';

/** The examples of an operation's request body and of its answers by status. */
export interface OperationExamples {
  request?: Record<string, Example<unknown>>;
  responses?: Record<number, Record<string, Example<unknown>>>;
}

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  savePolicy: {
    request: {
      example: { summary: 'three rules, one of each effect, activated at once', value: EXAMPLE_POLICY },
    },
  },
  submitIntent: {
    request: Object.fromEntries(
      INTENT_EXAMPLES.map((example) => [
        keyOf(example.summary),
        { summary: example.summary, value: example.request },
      ]),
    ),
    responses: Object.fromEntries(
      INTENT_EXAMPLES.map((example) => [
        example.status,
        { [keyOf(example.summary)]: { summary: example.summary, value: example.response } },
      ]),
    ),
  },
};
