import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IntentResponse, PolicySaveRequest } from '@authority-runtime/sdk/wire';
import { Value } from 'typebox/value';
import { EXAMPLE_POLICY, INTENT_EXAMPLES } from '../../src/http/openapi-examples.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The document's examples are answers the service gives (contract §13.4): under the example
 * policy, each example request decides as its example answer shows. Ids, hashes and the token
 * differ from run to run; their forms are checked instead.
 */
describe('the OpenAPI examples of POST /intent', () => {
  let t: TestApp;
  let agent: Headers;
  before(async () => {
    t = await createTestApp('sqlite', {
      AUTHORITY_APPROVAL_URL: 'https://authority.example.com/console/approvals',
    });
    const owner = await t.ownerHeaders('acme');
    agent = await t.roleHeaders('acme', 'agent');
    assert.ok(Value.Check(PolicySaveRequest, EXAMPLE_POLICY));
    const saved = await t.app.inject({
      method: 'POST',
      url: '/authority/policy',
      headers: owner,
      payload: EXAMPLE_POLICY,
    });
    assert.equal(saved.statusCode, 201, saved.body);
  });
  after(async () => {
    await t.close();
  });

  it('shows one example of each outcome', () => {
    assert.deepEqual(
      INTENT_EXAMPLES.map((example) => [example.status, example.response.authorityDecision.decision]),
      [
        [200, 'APPROVED'],
        [202, 'ESCALATED'],
        [403, 'DENIED'],
      ],
    );
  });

  for (const example of INTENT_EXAMPLES) {
    it(`decides as shown: ${example.summary}`, async () => {
      const shown = example.response;
      assert.ok(Value.Check(IntentResponse, shown), [...Value.Errors(IntentResponse, shown)].join('; '));
      for (const id of [shown.intentId, shown.correlationId, shown.escalationId ?? shown.intentId]) {
        assert.match(id, UUID_V7);
      }
      assert.match(shown.audit.latestHash, /^[0-9a-f]{64}$/);

      const answer = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: example.request,
      });
      assert.equal(answer.statusCode, example.status, answer.body);
      const real = answer.json() as IntentResponse;
      assert.deepEqual(real.authorityDecision, shown.authorityDecision);
      assert.deepEqual(real.execution, shown.execution);
      assert.equal(real.audit.entriesWritten, shown.audit.entriesWritten);
      assert.deepEqual(Object.keys(real).sort(), Object.keys(shown).sort());
      if (shown.approval) {
        const { expiresAt: _shown, ...approval } = shown.approval;
        const { expiresAt: _real, ...realApproval } = real.approval ?? { expiresAt: '' };
        assert.deepEqual(realApproval, approval);
        assert.equal(
          real.approvalUrl,
          `https://authority.example.com/console/approvals/${real.escalationId}`,
        );
        assert.equal(
          shown.approvalUrl,
          `https://authority.example.com/console/approvals/${shown.escalationId}`,
        );
      }
      if (shown.authorityDecisionToken !== undefined) {
        const claims = JSON.parse(
          Buffer.from(shown.authorityDecisionToken.split('.')[1] ?? '', 'base64url').toString('utf8'),
        ) as Record<string, unknown>;
        assert.equal(claims.intentId, shown.intentId);
        assert.equal(claims.proposedAction, example.request.proposedAction);
        assert.equal(claims.targetSystem, example.request.targetSystem);
      }
    });
  }
});
