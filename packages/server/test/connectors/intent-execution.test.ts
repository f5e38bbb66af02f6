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
      t = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.0/8', IDEMPOTENCY_WAIT_MS: '1500' });
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

    it('an Idempotency-Key duplicate sent while the action runs waits for the final answer, or is 409 after IDEMPOTENCY_WAIT_MS', async () => {
      const send = (key: string) =>
        t.app.inject({
          method: 'POST',
          url: '/intent',
          headers: { ...agent, 'idempotency-key': key },
          payload: intentPayload('list open pull requests', { targetSystem: TARGET }),
        });
      /** Sends the first request, then the duplicate once the connector's call has arrived. */
      const duplicateWhileRunning = async (key: string) => {
        const calls = receiver.received.length;
        const first = send(key);
        while (receiver.received.length === calls) await new Promise((resolve) => setTimeout(resolve, 10));
        return { first, duplicate: await send(key) };
      };
      try {
        // The action takes 600 ms, within the duplicate's wait (1,500 ms in this suite).
        receiver.slowBy(600);
        const calls = receiver.received.length;
        const quick = await duplicateWhileRunning('slow-1');
        const original = await quick.first;
        assert.equal(original.json().execution.status, 'executed', original.body);
        assert.equal(quick.duplicate.statusCode, 200, quick.duplicate.body);
        assert.deepEqual(quick.duplicate.json(), original.json(), 'the final answer, execution included');
        assert.equal(receiver.received.length, calls + 1, 'executed once');

        // The action takes 2,500 ms: the duplicate gives up after its wait; a later one replays.
        receiver.slowBy(2_500);
        const slow = await duplicateWhileRunning('slow-2');
        assert.equal(slow.duplicate.statusCode, 409, slow.duplicate.body);
        assert.equal(slow.duplicate.json().error.code, 'CONFLICT');
        const finished = await slow.first;
        assert.equal(finished.json().execution.status, 'executed', finished.body);
        const replay = await send('slow-2');
        assert.deepEqual(replay.json(), finished.json());
        assert.equal(receiver.received.length, calls + 2, 'each executed once');
      } finally {
        receiver.slowBy(0);
      }
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
      const fetchToken = () =>
        t.app.inject({
          method: 'POST',
          url: `/intent/${escalated.json().intentId}/token`,
          headers: { ...agent, 'idempotency-key': 'token-1' },
        });
      // A duplicate sent while the action runs gets the final answer, not the one committed before it.
      receiver.slowBy(600);
      const pending = fetchToken();
      while (receiver.received.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      const duplicate = await fetchToken();
      receiver.slowBy(0);
      const token = await pending;
      assert.equal(token.statusCode, 200, token.body);
      assert.equal(token.json().execution.status, 'executed', JSON.stringify(token.json().execution));
      assert.equal(token.json().audit.entriesWritten, 3, 'token issued, consumed, execution completed');
      assert.deepEqual(duplicate.json(), token.json());
      assert.equal(receiver.received.length, before + 1);
      assert.equal(receiver.received.at(-1)?.verdict?.valid, true);
    });
  });
}
