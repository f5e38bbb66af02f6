import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainRepository } from '../../src/chain/chain-repository.js';
import { intentRepository } from '../../src/intent/repositories/intent-repository.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload, recordIntent } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

const ALLOW_ALL = { rules: [{ id: 'allow-all', effect: 'ALLOW' }], replacePacks: true };

for (const engine of ENGINES) {
  describe(`policy simulation (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let auditor: Headers;
    let agent: Headers;
    /** Intent ids by what they are, and the decisions they got. */
    const made: Array<{ id: string; decision: string; what: string }> = [];

    const simulate = (payload: unknown, headers: Headers = auditor, tenant = 'acme') =>
      t.app.inject({
        method: 'POST',
        url: '/authority/policy/simulate',
        headers: { ...headers, 'x-tenant-id': tenant },
        payload: payload as Record<string, unknown>,
      });

    async function submit(what: string, action: string, actorId = 'agent-7'): Promise<void> {
      t.clock.advance(1_000);
      const response = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload(action, { actor: { id: actorId, type: 'agent' } }),
      });
      const body = response.json();
      assert.ok(body.intentId, response.body);
      made.push({ id: body.intentId, decision: body.authorityDecision.decision, what });
    }

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      auditor = await t.roleHeaders('acme', 'auditor');
      agent = await t.roleHeaders('acme', 'agent');
      await submit('read', 'list open pull requests');
      await submit('write', 'merge pull request 1');
      await submit('write', 'merge pull request 2');
      await submit('floor', 'rm -rf /srv/build');
      await submit('blocked-read', 'list open pull requests', 'agent-9');
      await submit('write', 'merge pull request 3');
    });
    after(async () => {
      await t.close();
    });

    it('made the intents the simulation replays, under the starter policy', () => {
      assert.deepEqual(
        made.map((m) => `${m.what}:${m.decision}`),
        [
          'read:APPROVED',
          'write:ESCALATED',
          'write:ESCALATED',
          'floor:ESCALATED',
          'blocked-read:APPROVED',
          'write:ESCALATED',
        ],
      );
    });

    it('replays a draft: the transitions and the changes, newest first, with before as decided', async () => {
      const response = await simulate(ALLOW_ALL);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.evaluated, 6);
      assert.equal(body.changed, 3, 'three writes escalated; the floor still escalates');
      assert.deepEqual(body.transitions, { 'ESCALATED->APPROVED': 3 });
      const writes = made.filter((m) => m.what === 'write').map((m) => m.id);
      assert.deepEqual(
        body.changes.map((c: { intentId: string }) => c.intentId),
        writes.reverse(),
      );
      const [first] = body.changes;
      assert.deepEqual(first.before, {
        decision: 'ESCALATED',
        decidingRule: { id: 'starter/escalate-writes', effect: 'ESCALATE', priority: 100 },
      });
      assert.deepEqual(first.after, {
        decision: 'APPROVED',
        decidingRule: { id: 'allow-all', effect: 'ALLOW', priority: 100 },
      });
      assert.ok(Number.isInteger(body.durationMs) && body.durationMs >= 0);
      assert.match(first.createdAt, /^\d{4}-\d\d-\d\dT/);
    });

    it("uses the tenant's current actor list and thresholds", async () => {
      const blocked = await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-9',
        headers: owner,
        payload: { status: 'blocked', reason: 'runaway' },
      });
      assert.equal(blocked.statusCode, 200, blocked.body);
      const body = (await simulate(ALLOW_ALL)).json();
      assert.deepEqual(body.transitions, { 'ESCALATED->APPROVED': 3, 'APPROVED->DENIED': 1 });
      const denied = body.changes.find((c: { after: { decision: string } }) => c.after.decision === 'DENIED');
      assert.equal(denied.after.decidingRule.id, 'signal:actor-blocked');

      const stricter = await t.app.inject({
        method: 'PUT',
        url: '/authority/thresholds/acme',
        headers: owner,
        payload: { escalateAt: 5 },
      });
      assert.equal(stricter.statusCode, 200, stricter.body);
      const strict = (await simulate({ version: 1 })).json();
      assert.deepEqual(
        strict.transitions,
        { 'APPROVED->DENIED': 2 },
        'starter/allow-reads needs a score under escalateAt; agent-9 is blocked',
      );
      for (const [url, payload] of [
        ['/authority/actors/agent-9', { status: 'active' }],
        ['/authority/thresholds/acme', { escalateAt: 60 }],
      ] as const) {
        const restored = await t.app.inject({ method: 'PUT', url, headers: owner, payload });
        assert.equal(restored.statusCode, 200, restored.body);
      }
    });

    it('replays a stored version; the live policy itself changes nothing', async () => {
      const body = (await simulate({ version: 1 })).json();
      assert.deepEqual([body.evaluated, body.changed, body.transitions, body.changes], [6, 0, {}, []]);
    });

    it('keeps installed pack rules in a draft unless replacePacks', async () => {
      const kept = (await simulate({ rules: [{ id: 'allow-all', effect: 'ALLOW' }] })).json();
      assert.equal(kept.changed, 0, 'starter/escalate-writes still escalates the writes');
    });

    it('samples the most recent matching intents: limit, actor, target, time range', async () => {
      const limited = (await simulate({ ...ALLOW_ALL, sample: { limit: 2 } })).json();
      assert.equal(limited.evaluated, 2);
      assert.deepEqual(limited.transitions, { 'ESCALATED->APPROVED': 1 });
      const byActor = (await simulate({ ...ALLOW_ALL, sample: { actorId: 'agent-9' } })).json();
      assert.equal(byActor.evaluated, 1);
      const byTarget = (await simulate({ ...ALLOW_ALL, sample: { targetSystem: 'acme/other' } })).json();
      assert.equal(byTarget.evaluated, 0);
      const start = Date.parse('2026-01-01T00:00:00.000Z');
      const window = (
        await simulate({
          ...ALLOW_ALL,
          sample: {
            from: new Date(start + 2_000).toISOString(),
            to: new Date(start + 4_000).toISOString(),
          },
        })
      ).json();
      assert.equal(window.evaluated, 2, 'from inclusive, to exclusive');
    });

    it('decides nothing, mints nothing, and appends exactly one policy.simulated entry', async () => {
      const intentsBefore = await intentRepository.list(t.storage.db, 'acme', { limit: 100, now: t.clock() });
      const headBefore = await chainRepository.head(t.storage.db, 'acme');
      const body = (await simulate(ALLOW_ALL)).json();
      const intentsAfter = await intentRepository.list(t.storage.db, 'acme', { limit: 100, now: t.clock() });
      assert.deepEqual(intentsAfter, intentsBefore, 'no intent written, no token, no status changed');
      const headAfter = await chainRepository.head(t.storage.db, 'acme');
      assert.equal(headAfter?.lastIndex, (headBefore?.lastIndex ?? -1) + 1);
      const [latest] = await chainRepository.page(t.storage.db, 'acme', {}, 1);
      assert.ok(latest);
      assert.equal(latest.entry.eventType, 'policy.simulated');
      const payload = latest.entry.payload as Record<string, unknown>;
      assert.deepEqual(payload.transitions, body.transitions);
      assert.equal(payload.evaluated, 6);
    });

    it('refuses bad input with 400 naming the field, and an unknown version with 404', async () => {
      for (const [payload, fragment] of [
        [{}, 'exactly one'],
        [{ rules: [], version: 1 }, 'exactly one'],
        [{ version: 1, replacePacks: true }, 'replacePacks'],
        [{ rules: [{ id: 'bad', effect: 'MAYBE' }] }, 'bad'],
        [{ ...ALLOW_ALL, sample: { limit: 0 } }, 'limit'],
        [{ ...ALLOW_ALL, sample: { limit: 10_001 } }, 'limit'],
        [{ ...ALLOW_ALL, sample: { from: 'yesterday' } }, 'from'],
        [{ ...ALLOW_ALL, sample: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }, 'from'],
        [{ ...ALLOW_ALL, activate: true }, 'activate'],
      ] as const) {
        const response = await simulate(payload);
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        assert.equal(response.json().error.code, 'VALIDATION_ERROR');
        assert.ok(response.body.includes(fragment), `${fragment}: ${response.body}`);
      }
      const missing = await simulate({ version: 99 });
      assert.equal(missing.statusCode, 404, missing.body);
    });

    it('needs authority:policy:read, and sees only its own tenant', async () => {
      const forbidden = await simulate(ALLOW_ALL, agent);
      assert.equal(forbidden.statusCode, 403);
      assert.equal(forbidden.json().error.details.permission, 'authority:policy:read');
      const other = await t.ownerHeaders('globex');
      const mismatch = await simulate(ALLOW_ALL, other, 'acme');
      assert.equal(mismatch.statusCode, 403);
      const own = (await simulate(ALLOW_ALL, other, 'globex')).json();
      assert.equal(own.evaluated, 0, "acme's intents are not globex's sample");
      const foreignVersion = await simulate({ version: 2 }, other, 'globex');
      assert.equal(foreignVersion.statusCode, 404);
    });

    it('replays a sample larger than a page, in order, to its limit', async () => {
      await t.createTenant('paged');
      const headers = await t.roleHeaders('paged', 'auditor');
      const ids: string[] = [];
      for (let n = 0; n < 230; n += 1) {
        t.clock.advance(10);
        ids.push(
          (await recordIntent(t.storage, t.services, t.clock(), { tenantId: 'paged', decision: 'ESCALATED' }))
            .intentId,
        );
      }
      const newestFirst = [...ids].reverse();
      const all = (await simulate(ALLOW_ALL, headers, 'paged')).json();
      assert.deepEqual(
        [all.evaluated, all.changed, all.transitions, all.changes.length],
        [230, 230, { 'ESCALATED->APPROVED': 230 }, 200],
      );
      assert.deepEqual(
        all.changes.map((c: { intentId: string }) => c.intentId),
        newestFirst.slice(0, 200),
        'the changes in sample order across pages',
      );
      const limited = (await simulate({ ...ALLOW_ALL, sample: { limit: 150 } }, headers, 'paged')).json();
      assert.equal(limited.evaluated, 150);
      assert.deepEqual(
        limited.changes.map((c: { intentId: string }) => c.intentId),
        newestFirst.slice(0, 150),
      );
    });
  });
}
