// A consumer of the packed @authority-runtime/sdk, run with plain `node` from an empty project
// outside the repository by scripts/check-packed-sdk.mjs: the whole agent loop against a real
// `authority serve`, named by AUTHORITY_URL, AUTHORITY_TENANT and AUTHORITY_API_KEY (an owner key).
import assert from 'node:assert/strict';
import {
  AuthorityClient,
  InMemoryNonceStore,
  remoteJwks,
  verifyAuthorityToken,
} from '@authority-runtime/sdk';
import { IntentRequest, WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import { Compile } from 'typebox/compile';

const baseUrl = process.env.AUTHORITY_URL;
const tenantId = process.env.AUTHORITY_TENANT;
const owner = new AuthorityClient({ baseUrl, tenantId, apiKey: process.env.AUTHORITY_API_KEY });
const agent = new AuthorityClient({
  baseUrl,
  tenantId,
  apiKey: (await owner.keys.createApiKey({ name: 'packed-sdk agent', role: 'agent' })).key,
});
const reviewer = new AuthorityClient({
  baseUrl,
  tenantId,
  apiKey: (await owner.keys.createApiKey({ name: 'packed-sdk reviewer', role: 'approver' })).key,
});

const jwks = remoteJwks(new URL(`/.well-known/authority/${tenantId}/jwks.json`, baseUrl));
const nonceStore = new InMemoryNonceStore();
const expected = { tenantId, adapterId: 'external', targetSystem: 'acme/payments' };
const intent = (proposedAction) => ({
  actor: { id: 'packed-sdk', type: 'agent' },
  targetSystem: 'acme/payments',
  proposedAction,
  riskContext: { baseRiskScore: 10 },
});

assert.equal(Compile(IntentRequest).Check({ tenantId, ...intent('list open pull requests') }), true);
assert.equal(WIRE_ROUTES.submitIntent.path, '/intent');

const approved = await agent.submitIntent(intent('list open pull requests'));
assert.equal(approved.outcome, 'APPROVED');
const first = await verifyAuthorityToken(approved.token, { jwks, expected, nonceStore });
assert.equal(first.valid, true, JSON.stringify(first));

const escalated = await agent.submitIntent(intent('merge pull request 42'));
assert.equal(escalated.outcome, 'ESCALATED');
await reviewer.decideApproval({
  intentId: escalated.intentId,
  decision: 'approve',
  rationale: 'packed SDK check',
});
assert.equal(
  await agent.waitForApproval(escalated.intentId, { timeoutMs: 10_000, pollIntervalMs: 100 }),
  'APPROVED_AFTER_REVIEW',
);
const { token } = await agent.fetchToken(escalated.intentId);
const second = await verifyAuthorityToken(token, { jwks, expected, nonceStore });
assert.equal(second.valid, true, JSON.stringify(second));

const replay = await verifyAuthorityToken(token, { jwks, expected, nonceStore });
assert.equal(replay.valid, false);
let events = 0;
for await (const _event of owner.audit.timeline({ limit: 2 })) events += 1;
assert.ok(events >= 6, `timeline pages: ${events} events`);
console.log(
  `packed SDK OK: ${approved.intentId} approved, ${escalated.intentId} approved after review, ${events} audit events`,
);
