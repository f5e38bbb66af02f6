import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { chainEvents } from './fixtures.js';

for (const engine of ENGINES) {
  describe(`physical actor roster (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let auditor: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      other = await t.ownerHeaders('globex');
      auditor = await t.roleHeaders('acme', 'auditor');
    });
    after(async () => {
      await t.close();
    });

    const register = (payload: unknown, headers = owner) =>
      t.app.inject({ method: 'POST', url: '/v1/physical/actors', headers, payload: payload as object });

    it('registers an actor with the defaults and records it in the chain', async () => {
      const res = await register({ actorIdentity: 'devid:arm-1', actorKind: 'robot' });
      assert.equal(res.statusCode, 200, res.body);
      const actor = res.json();
      assert.match(actor.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        { ...actor, id: undefined, createdAtMs: undefined, updatedAtMs: undefined },
        {
          id: undefined,
          tenantId: 'acme',
          actorIdentity: 'devid:arm-1',
          actorIdentityKind: 'ieee-802-1ar-devid',
          actorKind: 'robot',
          displayName: null,
          status: 'active',
          metadata: null,
          createdAtMs: undefined,
          updatedAtMs: undefined,
        },
      );
      assert.equal(actor.createdAtMs, t.clock());
      const events = await chainEvents(t, 'acme', 'physical.actor.registered');
      assert.equal(events.length, 1);
      assert.equal(events[0]?.actorType, 'principal:api-key');
      assert.equal(events[0]?.payload.created, true);
    });

    it('is idempotent on actorIdentity: a repeat changes and records nothing; an update keeps omitted fields', async () => {
      const first = await register({
        actorIdentity: 'devid:drone-1',
        actorKind: 'drone',
        displayName: 'Drone one',
        metadata: { site: 'north' },
      });
      assert.equal(first.statusCode, 200, first.body);
      const entries = (await chainEvents(t, 'acme', 'physical.actor.registered')).length;
      t.clock.advance(1_000);
      const again = await register({
        actorIdentity: 'devid:drone-1',
        actorKind: 'drone',
        displayName: 'Drone one',
      });
      assert.deepEqual(again.json(), first.json(), 'same actor, same id, metadata kept, not updated');
      assert.equal((await chainEvents(t, 'acme', 'physical.actor.registered')).length, entries);

      const disabled = await register({
        actorIdentity: 'devid:drone-1',
        actorKind: 'drone',
        status: 'disabled',
      });
      assert.equal(disabled.statusCode, 200);
      assert.equal(disabled.json().id, first.json().id);
      assert.equal(disabled.json().status, 'disabled');
      assert.equal(disabled.json().displayName, 'Drone one');
      assert.deepEqual(disabled.json().metadata, { site: 'north' });
      assert.equal(disabled.json().updatedAtMs, t.clock());
      const last = (await chainEvents(t, 'acme', 'physical.actor.registered')).at(-1);
      assert.deepEqual(last?.payload.changed, ['status']);

      const cleared = await register({
        actorIdentity: 'devid:drone-1',
        actorKind: 'drone',
        displayName: null,
        metadata: null,
      });
      assert.equal(cleared.json().displayName, null);
      assert.equal(cleared.json().metadata, null);
    });

    it('registers concurrently without duplicates', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () => register({ actorIdentity: 'devid:agv-9', actorKind: 'agv' })),
      );
      assert.ok(results.every((r) => r.statusCode === 200));
      assert.equal(new Set(results.map((r) => r.json().id)).size, 1);
      const created = (await chainEvents(t, 'acme', 'physical.actor.registered')).filter(
        (e) => e.payload.actorIdentity === 'devid:agv-9',
      );
      assert.equal(created.length, 1);
    });

    it('answers the decision endpoint lookup: active actors only, else 403 actor_not_registered', async () => {
      const actor = await t.services.physical.actors.get('acme', 'devid:arm-1');
      assert.equal(actor.actorKind, 'robot');
      for (const identity of ['devid:drone-1', 'devid:nobody']) {
        await assert.rejects(
          t.services.physical.actors.get('acme', identity),
          (error: Error & { code?: string }) => {
            assert.equal(error.code, 'ACTOR_NOT_REGISTERED');
            return true;
          },
        );
      }
      await assert.rejects(t.services.physical.actors.get('globex', 'devid:arm-1'));
      assert.equal((await t.services.physical.actors.find('acme', 'devid:drone-1'))?.status, 'disabled');
    });

    it('lists most recently registered first, with limit and cursor', async () => {
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/physical/actors?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await t.app.inject({ method: 'GET', url, headers: owner });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json() as { actors: Array<{ actorIdentity: string }>; nextCursor: string | null };
        assert.ok(body.actors.length <= 2);
        all.push(...body.actors.map((a) => a.actorIdentity));
        cursor = body.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(all, ['devid:agv-9', 'devid:drone-1', 'devid:arm-1']);
      const bad = await t.app.inject({
        method: 'GET',
        url: '/v1/physical/actors?cursor=nope',
        headers: owner,
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'validation_error');
    });

    it('refuses bad bodies with validation_error', async () => {
      const cases: unknown[] = [
        {},
        { actorIdentity: 'x', actorKind: 'tank' },
        { actorIdentity: '', actorKind: 'robot' },
        { actorIdentity: 'a\u0001b', actorKind: 'robot' },
        { actorIdentity: 'x', actorKind: 'robot', status: 'retired' },
        { actorIdentity: 'x', actorKind: 'robot', extra: 1 },
        { actorIdentity: 'x', actorKind: 'robot', metadata: [1, 2] },
        { actorIdentity: 'x', actorKind: 'robot', metadata: { blob: 'x'.repeat(17_000) } },
      ];
      for (const payload of cases) {
        const res = await register(payload);
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)}: ${res.body}`);
        assert.equal(res.json().error.code, 'validation_error');
        assert.ok(Array.isArray(res.json().error.details.issues));
      }
    });

    it('checks permissions with lower-snake codes, and keeps tenants apart', async () => {
      const forbidden = await register({ actorIdentity: 'devid:x', actorKind: 'robot' }, auditor);
      assert.equal(forbidden.statusCode, 403);
      assert.equal(forbidden.json().error.code, 'forbidden');
      assert.equal(forbidden.json().error.details.permission, 'physical:actors:write');
      const unauthenticated = await t.app.inject({ method: 'GET', url: '/v1/physical/actors' });
      assert.equal(unauthenticated.statusCode, 401);
      assert.equal(unauthenticated.json().error.code, 'unauthenticated');

      const theirs = await t.app.inject({ method: 'GET', url: '/v1/physical/actors', headers: other });
      assert.deepEqual(theirs.json(), { actors: [], nextCursor: null });
      // The same identity in another tenant is another actor.
      const mine = await register({ actorIdentity: 'devid:arm-1', actorKind: 'cobot' }, other);
      assert.equal(mine.json().tenantId, 'globex');
      assert.equal((await t.services.physical.actors.get('acme', 'devid:arm-1')).actorKind, 'robot');
    });
  });
}
