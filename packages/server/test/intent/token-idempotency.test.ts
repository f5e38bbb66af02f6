import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

type Headers = Record<string, string>;

const RATIONALE = 'Reviewed the change and the blast radius';

for (const engine of ENGINES) {
  describe(`POST /intent/:id/token with Idempotency-Key (${engine})`, () => {
    let t: TestApp;
    let agent: Headers;
    let otherAgent: Headers;
    let approver: Headers;

    before(async () => {
      t = await createTestApp(engine);
      await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      otherAgent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
    });
    after(async () => {
      await t.close();
    });

    async function escalate(): Promise<string> {
      const response = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('merge pull request 42'),
      });
      assert.equal(response.statusCode, 202, response.body);
      return response.json().intentId;
    }

    async function approve(intentId: string): Promise<void> {
      const response = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: approver,
        payload: { intentId, decision: 'approve', rationale: RATIONALE },
      });
      assert.equal(response.statusCode, 200, response.body);
    }

    const token = (intentId: string, headers: Headers, key?: string) =>
      t.app.inject({
        method: 'POST',
        url: `/intent/${intentId}/token`,
        headers: key === undefined ? headers : { ...headers, 'idempotency-key': key },
      });

    const tokenEntries = async (intentId: string) =>
      (
        await t.storage.db
          .selectFrom('audit_entries')
          .select('event_type')
          .where('tenant_id', '=', 'acme')
          .where('intent_id', '=', intentId)
          .where('event_type', '=', 'token.issued')
          .execute()
      ).length;

    it('replays the stored 200 for the same key, so a retry after a lost reply gets the one token', async () => {
      const intentId = await escalate();
      await approve(intentId);
      const first = await token(intentId, agent, 'fetch-1');
      assert.equal(first.statusCode, 200, first.body);
      const replay = await token(intentId, agent, 'fetch-1');
      assert.equal(replay.statusCode, 200, replay.body);
      assert.deepEqual(replay.json(), first.json(), 'the same body, the same token');
      assert.equal(await tokenEntries(intentId), 1, 'minted once');

      const withoutKey = await token(intentId, agent);
      assert.equal(withoutKey.statusCode, 409);
      assert.equal(withoutKey.json().error.details.reason, 'token_already_issued');
      const otherKey = await token(intentId, agent, 'fetch-2');
      assert.equal(otherKey.statusCode, 409, 'another key is another request: the token is spent');
    });

    it('releases a key whose call was refused, so the same key mints once the escalation is approved', async () => {
      const intentId = await escalate();
      const early = await token(intentId, agent, 'early-key');
      assert.equal(early.statusCode, 409);
      assert.equal(early.json().error.details.status, 'ESCALATED');
      await approve(intentId);
      const later = await token(intentId, agent, 'early-key');
      assert.equal(later.statusCode, 200, later.body);
      assert.equal(typeof later.json().authorityDecisionToken, 'string');
    });

    it('answers 409 for a key already used for another intent, and 404 to another principal', async () => {
      const first = await escalate();
      const second = await escalate();
      await approve(first);
      await approve(second);
      assert.equal((await token(first, agent, 'shared-key')).statusCode, 200);
      const reused = await token(second, agent, 'shared-key');
      assert.equal(reused.statusCode, 409);
      assert.equal(reused.json().error.code, 'CONFLICT');
      const stranger = await token(first, otherAgent, 'shared-key');
      assert.equal(stranger.statusCode, 404, 'no replay for a principal that did not submit the intent');
      assert.ok(!stranger.body.includes('eyJ'));
      assert.equal(await tokenEntries(second), 0);
    });

    it('refuses a malformed key with 400 before anything is minted', async () => {
      const intentId = await escalate();
      await approve(intentId);
      const response = await token(intentId, agent, 'has space');
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error.code, 'VALIDATION_ERROR');
      assert.equal(await tokenEntries(intentId), 0);
    });
  });
}
