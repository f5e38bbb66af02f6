import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import {
  chainEvents,
  clearState,
  decisionRows,
  engaged,
  issue,
  moveGoal,
  pickGoal,
  registerActors,
  tokenBody,
} from './fixtures.js';

/** `Idempotency-Key` on `POST /v1/physical/authority-tokens` (contract §9). */
for (const engine of ENGINES) {
  describe(`physical authority tokens: Idempotency-Key (${engine})`, () => {
    let t: TestApp;
    let acme: Headers;
    let globex: Headers;

    before(async () => {
      t = await createTestApp(engine, { IDEMPOTENCY_WAIT_MS: '5000' });
      acme = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
      globex = bearer((await t.createTenant('globex', 'enterprise')).ownerKey.key, 'globex');
      await registerActors(t, acme);
      await registerActors(t, globex);
    });
    after(async () => {
      await t.close();
    });

    const key = (value: string) => ({ 'idempotency-key': value });

    it('20 parallel requests with one key and body: one issuance, one audit record, identical answers', async () => {
      const body = tokenBody({ physicalState: clearState(t.clock()) });
      const before = (await decisionRows(t, 'acme')).length;
      const issuedBefore = (await chainEvents(t, 'acme', 'physical.token.issued')).length;
      const snapshotsBefore = (await chainEvents(t, 'acme', 'physical.snapshot')).length;
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => issue(t, acme, body, key('pick-tote-17:1'))),
      );
      for (const res of answers) assert.equal(res.statusCode, 200, res.body);
      const bodies = new Set(answers.map((res) => res.body));
      assert.equal(bodies.size, 1, 'every answer is the first one');
      assert.equal(answers[0]?.json().decision, 'ALLOW');
      assert.equal((await decisionRows(t, 'acme')).length, before + 1);
      assert.equal((await chainEvents(t, 'acme', 'physical.token.issued')).length, issuedBefore + 1);
      assert.equal((await chainEvents(t, 'acme', 'physical.snapshot')).length, snapshotsBefore + 1);

      // Later, from the stored answer, even when the world changed (the token is not minted again).
      t.clock.advance(10_000);
      const replay = await issue(t, acme, body, key('pick-tote-17:1'));
      assert.equal(replay.body, answers[0]?.body);
    });

    it('the same key with another body is 409 conflict', async () => {
      const first = await issue(
        t,
        acme,
        tokenBody({ physicalState: clearState(t.clock()) }),
        key('node-2:1'),
      );
      assert.equal(first.statusCode, 200, first.body);
      const other = tokenBody({ goal: pickGoal({ object: 'bin' }), physicalState: clearState(t.clock()) });
      const res = await issue(t, acme, other, key('node-2:1'));
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().error.code, 'conflict');
    });

    it('a key is the tenant’s own: another tenant using it gets its own decision', async () => {
      const body = tokenBody({ physicalState: clearState(t.clock()) });
      const mine = await issue(t, acme, body, key('shared-key:7'));
      const theirs = await issue(t, globex, body, key('shared-key:7'));
      assert.equal(mine.statusCode, 200, mine.body);
      assert.equal(theirs.statusCode, 200, theirs.body);
      assert.notEqual(mine.json().tokenJti, theirs.json().tokenJti);
      const entry = await t.app.inject({
        method: 'GET',
        url: `/v1/physical/audit/${theirs.json().tokenJti}`,
        headers: globex,
      });
      assert.equal(entry.json().tenantId, 'globex');
      // And the same tenant replays its own answer.
      assert.equal((await issue(t, globex, body, key('shared-key:7'))).body, theirs.body);
    });

    it('stored DENY and ESCALATE answers replay with their status and body (requestId included)', async () => {
      const deny = tokenBody({
        physicalState: clearState(t.clock(), { 'safety/emergency-stop': engaged(t.clock()) }),
      });
      const before = (await decisionRows(t, 'acme')).length;
      const first = await issue(t, acme, deny, key('deny:1'));
      const second = await issue(t, acme, deny, key('deny:1'));
      assert.equal(first.statusCode, 422, first.body);
      assert.equal(second.statusCode, 422);
      assert.equal(second.body, first.body);
      assert.notEqual(second.headers['x-request-id'], first.json().error.requestId);

      const escalate = tokenBody({ goal: moveGoal(), physicalState: clearState(t.clock()) });
      const opened = await issue(t, acme, escalate, key('escalate:1'));
      const again = await issue(t, acme, escalate, key('escalate:1'));
      assert.equal(opened.json().decision, 'ESCALATE', opened.body);
      assert.equal(again.body, opened.body, 'one ticket');
      assert.equal((await decisionRows(t, 'acme')).length, before + 2);
    });

    it('a body refused by the schema is a stored final answer too: replayed as is, another body 409', async () => {
      const invalid = { ...tokenBody({ physicalState: clearState(t.clock()) }), dagNode: { nodeId: 'n-1' } };
      const first = await issue(t, acme, invalid, key('schema-400:1'));
      assert.equal(first.statusCode, 400, first.body);
      assert.equal(first.json().error.code, 'validation_error');
      const again = await issue(t, acme, invalid, key('schema-400:1'));
      assert.equal(again.statusCode, 400);
      assert.equal(again.body, first.body, 'the stored answer, its requestId included');
      const corrected = await issue(
        t,
        acme,
        tokenBody({ physicalState: clearState(t.clock()) }),
        key('schema-400:1'),
      );
      assert.equal(corrected.statusCode, 409, corrected.body);
      assert.equal(corrected.json().error.code, 'conflict');
    });

    it('only final answers are stored: a 403 frees the key, a malformed key is 400', async () => {
      const goal = pickGoal({ actor: { kind: 'robot', identifier: 'devid:new-arm' } });
      const body = tokenBody({ goal, physicalState: clearState(t.clock()) });
      const refused = await issue(t, acme, body, key('new-arm:1'));
      assert.equal(refused.json().error.code, 'actor_not_registered');
      const registered = await t.app.inject({
        method: 'POST',
        url: '/v1/physical/actors',
        headers: acme,
        payload: { actorIdentity: 'devid:new-arm', actorKind: 'robot' },
      });
      assert.equal(registered.statusCode, 200, registered.body);
      const retried = await issue(t, acme, body, key('new-arm:1'));
      assert.equal(retried.json().decision, 'ALLOW', retried.body);

      for (const bad of ['x'.repeat(256), 'tab\there']) {
        const res = await issue(t, acme, body, key(bad));
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.code, 'validation_error');
      }
    });
  });
}
