import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

/**
 * What the console reads about an escalation (contract §14): `approvalUrl` on the ESCALATED
 * response and on the list, and `GET /authority/approvals/:escalationId` with the intent summary.
 */

const APPROVAL_BASE = 'https://console.example.test/approvals';
const RATIONALE = 'Checked the statement against the migration plan';
const CATASTROPHIC_ARGS = { sql: 'DROP TABLE users', apiToken: 'tok-should-not-show', note: 'x'.repeat(400) };

for (const engine of ENGINES) {
  describe(`escalation reads for the console (${engine})`, () => {
    let t: TestApp;
    let agent: Headers;
    let approver: Headers;
    let senior: Headers;
    let globexApprover: Headers;

    before(async () => {
      t = await createTestApp(engine, { AUTHORITY_APPROVAL_URL: `${APPROVAL_BASE}/` });
      await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
      senior = await t.roleHeaders('acme', 'senior_approver');
      await t.ownerHeaders('globex');
      globexApprover = await t.roleHeaders('globex', 'approver');
    });
    after(async () => {
      await t.close();
    });

    async function escalate(action: string, extra: Record<string, unknown> = {}) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload(action, extra),
      });
      assert.equal(res.statusCode, 202, res.body);
      return res.json() as { intentId: string; escalationId: string; approvalUrl: string };
    }
    const detail = (headers: Headers, escalationId: string) =>
      t.app.inject({ method: 'GET', url: `/authority/approvals/${escalationId}`, headers });

    it('gives an ESCALATED response its approvalUrl, the same as the list item, and none to other outcomes', async () => {
      const escalated = await escalate('merge pull request 42', { args: { pullNumber: 42 } });
      assert.equal(escalated.approvalUrl, `${APPROVAL_BASE}/${escalated.escalationId}`);
      const approved = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list open pull requests'),
      });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal('approvalUrl' in approved.json(), false);

      const list = await t.app.inject({ method: 'GET', url: '/authority/approvals', headers: approver });
      assert.equal(list.statusCode, 200, list.body);
      const item = (list.json().approvals as Array<Record<string, unknown>>).find(
        (row) => row.escalationId === escalated.escalationId,
      );
      assert.ok(item, 'the escalation is listed');
      assert.equal(item.approvalUrl, escalated.approvalUrl);
      assert.deepEqual(item.decidingRule, {
        id: 'starter/escalate-writes',
        effect: 'ESCALATE',
        priority: 100,
      });
      assert.equal(item.argsPreview, '{"pullNumber":42}');
    });

    it('replays the approvalUrl with an idempotent replay', async () => {
      const payload = intentPayload('merge pull request 7');
      const send = () =>
        t.app.inject({
          method: 'POST',
          url: '/intent',
          headers: { ...agent, 'idempotency-key': 'console-replay' },
          payload,
        });
      const first = await send();
      const second = await send();
      assert.equal(second.statusCode, 202);
      assert.equal(second.json().approvalUrl, first.json().approvalUrl);
      assert.match(first.json().approvalUrl, /^https:\/\/console\.example\.test\/approvals\/[0-9a-f-]{36}$/);
    });

    it('reads one escalation: who asks, what, with which (redacted) arguments, which rule, what risk', async () => {
      const escalated = await escalate('run migration', { args: CATASTROPHIC_ARGS });
      const res = await detail(approver, escalated.escalationId);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.escalationId, escalated.escalationId);
      assert.equal(body.intentId, escalated.intentId);
      assert.equal(body.approvalUrl, escalated.approvalUrl);
      assert.equal(body.queue, 'catastrophic-review');
      assert.equal(body.requiredApprovals, 2);
      assert.equal(body.approvalsReceived, 0);
      assert.equal(body.status, 'pending');
      assert.equal(body.actorId, 'agent-7');
      assert.equal(body.proposedAction, 'run migration');
      assert.equal(body.decidingRule.id, 'catastrophic-floor');
      assert.ok(body.argsPreview.length <= 256);
      assert.doesNotMatch(body.argsPreview, /tok-should-not-show/);
      assert.deepEqual(body.intent.actor, { id: 'agent-7', type: 'agent' });
      assert.equal(body.intent.status, 'ESCALATED');
      assert.deepEqual(body.intent.args, { ...CATASTROPHIC_ARGS, apiToken: '[redacted]' });
      assert.deepEqual(body.intent.riskContext, { baseRiskScore: 10 });
      assert.equal(body.intent.decision.decision, 'ESCALATED');
      assert.equal(body.intent.decision.riskScore, 10);
      assert.ok(body.intent.decision.gateTrace.includes('structural'));
      assert.ok(
        body.intent.decision.rationale.some((line: string) => line.includes('catastrophic floor')),
        JSON.stringify(body.intent.decision.rationale),
      );
      assert.equal(typeof body.intent.requestedBy, 'string');
      assert.deepEqual(body.decisions, []);
    });

    it('shows each decision and the two-approver progress as they are recorded', async () => {
      const escalated = await escalate('drop the staging table', { args: { sql: 'DROP TABLE staging' } });
      const first = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: senior,
        payload: {
          intentId: escalated.intentId,
          decision: 'approve',
          approver: { name: 'Sam Senior' },
          rationale: RATIONALE,
        },
      });
      assert.equal(first.statusCode, 200, first.body);
      const body = (await detail(senior, escalated.escalationId)).json();
      assert.equal(body.status, 'pending');
      assert.equal(body.approvalsReceived, 1);
      assert.equal(body.decisions.length, 1);
      assert.deepEqual(body.decisions[0], {
        approvalId: first.json().approvalId,
        decision: 'approve',
        approver: { principalId: first.json().approver.principalId, id: null, name: 'Sam Senior' },
        rationale: RATIONALE,
        decidedAt: first.json().decidedAt,
      });
      assert.notEqual(body.decisions[0].approver.principalId, body.intent.requestedBy);
    });

    it('answers 404 for an unknown escalation, an intent id, and another tenant’s escalation', async () => {
      const escalated = await escalate('merge pull request 9');
      for (const id of ['01a20000-0000-7000-8000-000000000001', escalated.intentId]) {
        const res = await detail(approver, id);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().error.code, 'NOT_FOUND');
      }
      const foreign = await detail(globexApprover, escalated.escalationId);
      assert.equal(foreign.statusCode, 404);
      assert.doesNotMatch(foreign.body, /merge pull request 9/);
    });

    it('needs authority:approve', async () => {
      const escalated = await escalate('merge pull request 10');
      const res = await detail(agent, escalated.escalationId);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error.details.permission, 'authority:approve');
    });
  });
}
