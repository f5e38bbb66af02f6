import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { staticJwks, verifyAuthorityToken, verifyReceipt } from '@authority-runtime/sdk';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

type Headers = Record<string, string>;

const RATIONALE = 'Reviewed the change and the blast radius';

const CATASTROPHIC = { args: { sql: 'DROP TABLE users' } };

for (const engine of ENGINES) {
  describe(`approvals of escalated intents (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let approver: Headers;
    let secondApprover: Headers;
    let senior: Headers;
    let secondSenior: Headers;
    let globexApprover: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
      secondApprover = await t.roleHeaders('acme', 'approver');
      senior = await t.roleHeaders('acme', 'senior_approver');
      secondSenior = await t.roleHeaders('acme', 'senior_approver');
      await t.ownerHeaders('globex');
      globexApprover = await t.roleHeaders('globex', 'approver');
    });
    after(async () => {
      await t.close();
    });

    async function escalate(payload = intentPayload('merge pull request 42'), headers = agent) {
      const response = await t.app.inject({ method: 'POST', url: '/intent', headers, payload });
      assert.equal(response.statusCode, 202, response.body);
      return response.json() as { intentId: string; escalationId: string; approval: { expiresAt: string } };
    }

    const decide = (headers: Headers, body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers,
        payload: { rationale: RATIONALE, ...body },
      });
    const token = (headers: Headers, intentId: string) =>
      t.app.inject({ method: 'POST', url: `/intent/${intentId}/token`, headers });
    const read = async (intentId: string) =>
      (await t.app.inject({ method: 'GET', url: `/intent/${intentId}`, headers: owner })).json();

    it('approves a standard escalation once, then the submitter alone obtains one token the SDK accepts', async () => {
      const escalated = await escalate();
      const pendingToken = await token(agent, escalated.intentId);
      assert.equal(pendingToken.statusCode, 409);
      assert.equal(pendingToken.json().error.details.status, 'ESCALATED');
      const noReceipt = await t.app.inject({
        method: 'GET',
        url: `/intent/${escalated.intentId}/receipt`,
        headers: owner,
      });
      assert.equal(noReceipt.statusCode, 409, 'no receipt while the escalation is pending');

      const approved = await decide(approver, {
        intentId: escalated.intentId,
        decision: 'approve',
        approver: { id: 'alice', name: 'Alice' },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      const view = approved.json();
      assert.equal(view.intentId, escalated.intentId);
      assert.equal(view.escalationId, escalated.escalationId);
      assert.equal(view.decision, 'approve');
      assert.equal(view.status, 'approved');
      assert.equal(view.approvalsReceived, 1);
      assert.equal(view.requiredApprovals, 1);
      assert.equal(view.rationale, RATIONALE);
      assert.deepEqual({ id: view.approver.id, name: view.approver.name }, { id: 'alice', name: 'Alice' });
      assert.match(view.approver.principalId, /.+/);
      assert.match(view.approvalId, /^[0-9a-f-]{36}$/);

      const again = await decide(secondApprover, { intentId: escalated.intentId, decision: 'deny' });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().error.code, 'CONFLICT');
      assert.equal(again.json().error.details.status, 'approved', 'the escalation status, as on tickets');

      const stored = await read(escalated.intentId);
      assert.equal(stored.status, 'APPROVED_AFTER_REVIEW');
      assert.equal(stored.approval.status, 'approved');
      assert.equal(stored.tokenIssued, false);

      const byOther = await token(owner, escalated.intentId);
      assert.equal(byOther.statusCode, 404, 'only the submitter gets the token');
      const issued = await token(agent, escalated.intentId);
      assert.equal(issued.statusCode, 200, issued.body);
      const body = issued.json();
      assert.equal(body.authorityDecision.decision, 'APPROVED');
      assert.equal(body.audit.entriesWritten, 1);
      assert.deepEqual(body.execution, { attempted: false, status: 'not_configured' });
      const jwks = (
        await t.app.inject({ method: 'GET', url: '/.well-known/authority/acme/jwks.json' })
      ).json();
      const verified = await verifyAuthorityToken(body.authorityDecisionToken, {
        jwks: staticJwks(jwks),
        expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/payments' },
        clock: t.clock,
      });
      assert.equal(verified.valid, true, JSON.stringify(verified));
      if (verified.valid) assert.equal(verified.claims.intentId, escalated.intentId);

      // While the token is unspent its receipt is the submitter's (docs/audit-chain.md).
      const withheld = await t.app.inject({
        method: 'GET',
        url: `/intent/${escalated.intentId}/receipt`,
        headers: owner,
      });
      assert.equal(withheld.statusCode, 409, withheld.body);
      const receipt = await t.app.inject({
        method: 'GET',
        url: `/intent/${escalated.intentId}/receipt`,
        headers: agent,
      });
      assert.equal(receipt.statusCode, 200, receipt.body);
      assert.equal(receipt.json().decision, 'APPROVED');
      const logKey = (await t.app.inject({ url: '/.well-known/authority/acme/log-key' })).body;
      const checked = await verifyReceipt(receipt.json(), { jwks: staticJwks(jwks), logKey });
      assert.equal(checked.valid, true, JSON.stringify(checked));

      const second = await token(agent, escalated.intentId);
      assert.equal(second.statusCode, 409);
      assert.equal(second.json().error.details.reason, 'token_already_issued');
      assert.equal((await read(escalated.intentId)).tokenIssued, true);

      const events = await t.storage.db
        .selectFrom('audit_entries')
        .select('event_type')
        .where('tenant_id', '=', 'acme')
        .where('intent_id', '=', escalated.intentId)
        .orderBy('idx')
        .execute();
      assert.deepEqual(
        events.map((e) => e.event_type),
        ['intent.received', 'intent.decided', 'approval.recorded', 'token.issued'],
      );
      const verify = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers: owner });
      assert.equal(verify.json().valid, true);
    });

    it('refuses self-approval: the submitting principal, or a display id equal to the actor (403 separation_of_duties)', async () => {
      const byOwner = await escalate(intentPayload('merge pull request 43'), owner);
      const self = await decide(owner, { intentId: byOwner.intentId, decision: 'approve' });
      assert.equal(self.statusCode, 403);
      assert.equal(self.json().error.code, 'FORBIDDEN');
      assert.equal(self.json().error.details.reason, 'separation_of_duties');

      const asActor = await decide(approver, {
        intentId: byOwner.intentId,
        decision: 'approve',
        approver: { id: 'agent-7' },
      });
      assert.equal(asActor.statusCode, 403);
      assert.equal(asActor.json().error.details.reason, 'separation_of_duties');
      assert.equal(
        (await read(byOwner.intentId)).approval.status,
        'pending',
        'a refused approval changes nothing',
      );
    });

    it('needs authority:approve to decide at all, and hides other tenants’ intents (404)', async () => {
      const escalated = await escalate(intentPayload('merge pull request 44'));
      const byAgent = await decide(agent, { intentId: escalated.intentId, decision: 'approve' });
      assert.equal(byAgent.statusCode, 403);
      assert.equal(byAgent.json().error.details.permission, 'authority:approve');
      const foreign = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: globexApprover,
        payload: { intentId: escalated.intentId, decision: 'approve', rationale: RATIONALE },
      });
      assert.equal(foreign.statusCode, 404);
      const shortRationale = await decide(approver, {
        intentId: escalated.intentId,
        decision: 'approve',
        rationale: 'ok',
      });
      assert.equal(shortRationale.statusCode, 400);
      assert.equal(shortRationale.json().error.code, 'VALIDATION_ERROR');
    });

    it('answers 409 for an intent that was never escalated', async () => {
      const approvedDirectly = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list open pull requests'),
      });
      assert.equal(approvedDirectly.statusCode, 200);
      const response = await decide(approver, {
        intentId: approvedDirectly.json().intentId,
        decision: 'approve',
      });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.details.status, 'APPROVED');
    });

    it('catastrophic review: senior approvers only, two distinct ones, the same one twice is refused', async () => {
      const escalated = await escalate(intentPayload('run the migration', CATASTROPHIC));
      const plain = await decide(approver, { intentId: escalated.intentId, decision: 'approve' });
      assert.equal(plain.statusCode, 403);
      assert.equal(plain.json().error.details.permission, 'authority:approve:catastrophic');

      const first = await decide(senior, { intentId: escalated.intentId, decision: 'approve' });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().status, 'pending');
      assert.equal(first.json().approvalsReceived, 1);
      assert.equal(first.json().requiredApprovals, 2);
      assert.equal((await token(agent, escalated.intentId)).statusCode, 409, 'one approval is not enough');

      const twice = await decide(senior, { intentId: escalated.intentId, decision: 'approve' });
      assert.equal(twice.statusCode, 409);
      assert.equal(twice.json().error.details.reason, 'already_decided_by_principal');

      const second = await decide(secondSenior, { intentId: escalated.intentId, decision: 'approve' });
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().status, 'approved');
      assert.equal(second.json().approvalsReceived, 2);
      assert.equal((await token(agent, escalated.intentId)).statusCode, 200);
    });

    it('one deny ends a catastrophic review, and the denied intent never earns a token', async () => {
      const escalated = await escalate(intentPayload('run the migration again', CATASTROPHIC));
      assert.equal(
        (await decide(senior, { intentId: escalated.intentId, decision: 'approve' })).statusCode,
        200,
      );
      const denied = await decide(secondSenior, { intentId: escalated.intentId, decision: 'deny' });
      assert.equal(denied.statusCode, 200);
      assert.equal(denied.json().status, 'denied');
      const stored = await read(escalated.intentId);
      assert.equal(stored.status, 'DENIED_AFTER_REVIEW');
      const receipt = await t.app.inject({
        method: 'GET',
        url: `/intent/${escalated.intentId}/receipt`,
        headers: owner,
      });
      assert.equal(receipt.json().decision, 'DENIED_AFTER_REVIEW');
      assert.equal(receipt.json().token, null);
      const after = await decide(senior, { intentId: escalated.intentId, decision: 'approve' });
      assert.equal(after.statusCode, 409);
      assert.equal(after.json().error.details.status, 'denied');
      assert.equal((await token(agent, escalated.intentId)).statusCode, 409);
    });

    it('expires an escalation after approvalTtlSeconds: shown EXPIRED on read, 409 on decision, swept and audited', async () => {
      const lapsing = await escalate(intentPayload('merge pull request 50'));
      const swept = await escalate(intentPayload('merge pull request 51'));
      t.clock.advance(3_599_999);
      const pending = await decide(approver, { intentId: lapsing.intentId, decision: 'approve' });
      assert.equal(pending.statusCode, 200, 'still decidable on the last millisecond of its ttl');
      t.clock.advance(1);
      const [other] = [await escalate(intentPayload('merge pull request 52'))];

      const shown = await read(swept.intentId);
      assert.equal(shown.status, 'EXPIRED', 'expiry is computed on read');
      const listed = async (status: string) =>
        (await t.app.inject({ method: 'GET', url: `/intents?status=${status}&limit=200`, headers: owner }))
          .json()
          .intents.map((i: { intentId: string }) => i.intentId);
      assert.ok((await listed('EXPIRED')).includes(swept.intentId), 'the status filter computes expiry too');
      assert.ok(!(await listed('ESCALATED')).includes(swept.intentId));
      assert.equal(shown.approval.status, 'expired');
      const late = await decide(approver, { intentId: swept.intentId, decision: 'approve' });
      assert.equal(late.statusCode, 409);
      assert.equal(late.json().error.details.status, 'expired');

      t.clock.advance(3_600_001);
      // The escalations earlier tests left pending lapse too; the second sweep finds none left.
      assert.ok((await t.services.approvals.sweepExpired()) >= 1);
      assert.equal(await t.services.approvals.sweepExpired(), 0);
      const row = await t.storage.db
        .selectFrom('intents')
        .select(['status', 'review_state'])
        .where('tenant_id', '=', 'acme')
        .where('id', 'in', [swept.intentId, other.intentId])
        .execute();
      assert.deepEqual(
        row.map((r) => [r.status, r.review_state]),
        [
          ['EXPIRED', 'DECIDED'],
          ['EXPIRED', 'DECIDED'],
        ],
      );
      const expiredEntries = await t.storage.db
        .selectFrom('audit_entries')
        .select('intent_id')
        .where('tenant_id', '=', 'acme')
        .where('event_type', '=', 'intent.expired')
        .where('intent_id', 'in', [lapsing.intentId, swept.intentId, other.intentId])
        .execute();
      assert.deepEqual(
        expiredEntries.map((e) => e.intent_id).sort(),
        [swept.intentId, other.intentId].sort(),
      );
    });

    it('lists escalations by status and queue with a cursor', async () => {
      const a = await escalate(intentPayload('merge pull request 60'));
      const b = await escalate(intentPayload('merge pull request 61'));
      const c = await escalate(intentPayload('run a risky migration', CATASTROPHIC));
      const list = async (query: string) => {
        const response = await t.app.inject({
          method: 'GET',
          url: `/authority/approvals${query}`,
          headers: approver,
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json() as {
          approvals: Array<{ intentId: string; queue: string; status: string }>;
          nextCursor: string | null;
        };
      };
      const pending = await list('?status=pending');
      assert.deepEqual((await list('')).approvals, pending.approvals, 'status defaults to pending');
      assert.deepEqual(
        pending.approvals.map((e) => e.intentId),
        [c.intentId, b.intentId, a.intentId],
      );
      const catastrophic = await list('?status=pending&queue=catastrophic-review');
      assert.deepEqual(
        catastrophic.approvals.map((e) => e.intentId),
        [c.intentId],
      );
      const firstPage = await list('?status=pending&limit=2');
      assert.equal(firstPage.approvals.length, 2);
      assert.ok(firstPage.nextCursor);
      const secondPage = await list(`?status=pending&limit=2&cursor=${firstPage.nextCursor}`);
      assert.deepEqual(
        secondPage.approvals.map((e) => e.intentId),
        [a.intentId],
      );
      assert.equal(secondPage.nextCursor, null);
      const badCursor = await t.app.inject({
        method: 'GET',
        url: '/authority/approvals?cursor=zz',
        headers: approver,
      });
      assert.equal(badCursor.statusCode, 400);
      const expired = await list('?status=expired');
      assert.ok(expired.approvals.length >= 2);
      assert.ok(expired.approvals.every((e) => e.status === 'expired'));
    });

    it('answers 409 on the token route while the kill switch is on', async () => {
      const escalated = await escalate(intentPayload('merge pull request 70'));
      assert.equal(
        (await decide(approver, { intentId: escalated.intentId, decision: 'approve' })).statusCode,
        200,
      );
      const on = await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: owner,
        payload: { enabled: true, reason: 'incident' },
      });
      assert.equal(on.statusCode, 200);
      const refused = await token(agent, escalated.intentId);
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().error.details.reason, 'kill_switch');
      await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: owner,
        payload: { enabled: false },
      });
      assert.equal((await token(agent, escalated.intentId)).statusCode, 200);
    });
  });
}
