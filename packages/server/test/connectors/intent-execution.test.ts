import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import { startTokenReceiver, type TokenReceiver } from './token-receiver.js';

const TARGET = 'acme/deploy';

for (const engine of ENGINES) {
  describe(`approved intents execute through their autoExecute connector (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let approver: Headers;
    let receiver: TokenReceiver;
    let connectorId = '';

    before(async () => {
      t = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.0/8' });
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      receiver = await startTokenReceiver({
        jwksUrl: `http://127.0.0.1:${port}/.well-known/authority/acme/jwks.json`,
        tenantId: 'acme',
        adapterId: () => connectorId,
        targetSystem: TARGET,
        clock: t.clock,
      });
      const created = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'http',
          name: 'deployer',
          targetSystem: TARGET,
          config: { url: `${receiver.base}/execute` },
          autoExecute: true,
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      connectorId = created.json().id;
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    it('POST /intent APPROVED: token bound to the connector, executed once, outcome in the response, record and chain', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: { ...agent, 'idempotency-key': 'deploy-1' },
        payload: intentPayload('list open pull requests', { targetSystem: TARGET, args: { ref: 'main' } }),
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.execution.status, 'executed', JSON.stringify(body.execution));
      assert.equal(body.execution.attempted, true);
      assert.equal(body.execution.adapterId, connectorId);
      assert.equal(
        body.audit.entriesWritten,
        5,
        'received, decided, token issued, token consumed, execution completed',
      );
      assert.equal(receiver.received.length, 1);
      const call = receiver.received[0];
      assert.equal(call?.verdict?.valid, true, JSON.stringify(call?.verdict));
      assert.deepEqual(call?.body, {
        intentId: body.intentId,
        proposedAction: 'list open pull requests',
        targetSystem: TARGET,
        args: { ref: 'main' },
      });

      const stored = (
        await t.app.inject({ method: 'GET', url: `/intent/${body.intentId}`, headers: owner })
      ).json();
      assert.equal(stored.execution.status, 'executed');
      assert.deepEqual(
        stored.auditEntries.map((e: { eventType: string }) => e.eventType),
        ['intent.received', 'intent.decided', 'token.issued', 'token.consumed', 'execution.completed'],
      );
      assert.equal(stored.auditEntries.at(-1).entryHash, body.audit.latestHash);

      const replay = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: { ...agent, 'idempotency-key': 'deploy-1' },
        payload: intentPayload('list open pull requests', { targetSystem: TARGET, args: { ref: 'main' } }),
      });
      assert.deepEqual(replay.json(), body, 'a replay answers what the caller saw, execution included');
      assert.equal(receiver.received.length, 1, 'and never executes twice');
    });

    it('a DENIED or ESCALATED intent is never executed; an approved escalation executes when its token is issued', async () => {
      const escalated = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('merge pull request 9', { targetSystem: TARGET }),
      });
      assert.equal(escalated.statusCode, 202);
      assert.deepEqual(escalated.json().execution, { attempted: false, status: 'skipped' });
      const before = receiver.received.length;
      const approved = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: approver,
        payload: {
          intentId: escalated.json().intentId,
          decision: 'approve',
          rationale: 'release window is open',
        },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(receiver.received.length, before, 'approval alone executes nothing');
      const token = await t.app.inject({
        method: 'POST',
        url: `/intent/${escalated.json().intentId}/token`,
        headers: agent,
      });
      assert.equal(token.statusCode, 200, token.body);
      assert.equal(token.json().execution.status, 'executed', JSON.stringify(token.json().execution));
      assert.equal(token.json().audit.entriesWritten, 3, 'token issued, consumed, execution completed');
      assert.equal(receiver.received.length, before + 1);
      assert.equal(receiver.received.at(-1)?.verdict?.valid, true);
    });
  });
}
