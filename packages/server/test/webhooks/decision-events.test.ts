import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyWebhookSignature } from '@authority-runtime/sdk';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import { createEndpoint, testWorker } from './fixtures.js';
import { type Receiver, startReceiver } from './receiver.js';

for (const engine of ENGINES) {
  describe(`decision events reach webhooks (${engine})`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let owner: Headers;
    let agent: Headers;
    let approver: Headers;

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      receiver = await startReceiver();
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    it('one signed event per transition: completed, escalated, denied by policy, approved and denied in review, expired', async () => {
      const { secret } = await createEndpoint(t, owner, `${receiver.base}/acme`);
      const submit = async (payload: unknown) =>
        (
          await t.app.inject({ method: 'POST', url: '/intent', headers: agent, payload: payload as object })
        ).json();
      const review = (intentId: string, decision: 'approve' | 'deny') =>
        t.app.inject({
          method: 'POST',
          url: '/authority/approval',
          headers: approver,
          payload: { intentId, decision, rationale: 'checked by the on-call engineer' },
        });

      const approved = await submit(intentPayload('list open pull requests'));
      const denied = await submit(
        intentPayload('list branches', { riskContext: { baseRiskScore: 10, touchesProduction: true } }),
      );
      const toApprove = await submit(intentPayload('merge pull request 1'));
      const toDeny = await submit(intentPayload('merge pull request 2'));
      const toExpire = await submit(intentPayload('merge pull request 3'));
      assert.equal((await review(toApprove.intentId, 'approve')).statusCode, 200);
      assert.equal((await review(toDeny.intentId, 'deny')).statusCode, 200);
      t.clock.advance(3_600_000);
      assert.equal(await t.services.approvals.sweepExpired(), 1);

      const worker = testWorker(t);
      assert.equal(await worker.runOnce(), 8);
      await receiver.waitFor(8);
      const events = receiver.received.map((request) => {
        const verified = verifyWebhookSignature({
          rawBody: request.rawBody,
          signature: String(request.headers['x-service-signature']),
          secret,
          clock: t.clock,
        });
        assert.equal(verified.valid, true, JSON.stringify(verified));
        const body = JSON.parse(request.rawBody) as Record<string, unknown>;
        return [body.intentId, body.event, body.decision, body.reason ?? null];
      });
      const expected = [
        [approved.intentId, 'decision.completed', 'APPROVED', null],
        [denied.intentId, 'decision.denied', 'DENIED', null],
        [toApprove.intentId, 'decision.escalated', 'ESCALATED', null],
        [toDeny.intentId, 'decision.escalated', 'ESCALATED', null],
        [toExpire.intentId, 'decision.escalated', 'ESCALATED', null],
        [toApprove.intentId, 'decision.approved', 'APPROVED', null],
        [toDeny.intentId, 'decision.denied', 'DENIED', 'denied_in_review'],
        [toExpire.intentId, 'decision.denied', 'DENIED', 'expired'],
      ];
      for (const event of expected) {
        assert.ok(
          events.some((e) => JSON.stringify(e) === JSON.stringify(event)),
          `missing ${JSON.stringify(event)} in ${JSON.stringify(events)}`,
        );
      }
      assert.equal(events.length, 8, 'eight transitions, eight events');
    });
  });
}
