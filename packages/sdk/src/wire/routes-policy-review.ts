import { Type } from 'typebox';
import { bodyConflictErrors, bodyErrors, TenantParams } from './common.js';
import { PolicyVersion } from './policy.js';
import {
  PolicyReviewRequest,
  PolicyReviewSetting,
  PolicyReviewSettingRequest,
  SimulationRequest,
  SimulationResult,
} from './policy-review.js';
import { route } from './route.js';

/** The routes of the policy lifecycle (contract §16): simulation and two-person review. */
export const POLICY_REVIEW_ROUTES = {
  simulatePolicy: route({
    operationId: 'simulatePolicy',
    method: 'POST',
    path: '/authority/policy/simulate',
    tag: 'policy',
    summary:
      'Replay the most recent matching intents against a draft (rules) or a stored version; decides nothing',
    security: 'tenant',
    schema: { body: SimulationRequest, response: { 200: SimulationResult, ...bodyErrors } },
  }),
  setPolicyReview: route({
    operationId: 'setPolicyReview',
    method: 'PUT',
    path: '/authority/policy-review/:tenantId',
    tag: 'policy',
    summary:
      'Require (or stop requiring) review of new intent policy versions, with 1 or 2 approvals; owner only, audited',
    security: 'tenant',
    schema: {
      params: TenantParams,
      body: PolicyReviewSettingRequest,
      response: { 200: PolicyReviewSetting, ...bodyErrors },
    },
  }),
  reviewPolicyVersion: route({
    operationId: 'reviewPolicyVersion',
    method: 'POST',
    path: '/authority/policy/versions/:version/reviews',
    tag: 'policy',
    summary:
      "Approve or reject a policy version, with a comment; never the author's own (403 separation_of_duties)",
    security: 'tenant',
    schema: {
      params: Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
      body: PolicyReviewRequest,
      response: { 201: PolicyVersion, ...bodyConflictErrors },
    },
  }),
} as const;
