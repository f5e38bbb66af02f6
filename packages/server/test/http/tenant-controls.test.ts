import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintDecisionToken } from '../../src/tokens/decision-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`kill switch, catastrophic floor setting and actor list (${engine})`, () => {
    let t: TestApp;
    let owner: Record<string, string>;
    let admin: Record<string, string>;
    let agent: Record<string, string>;
    let other: Record<string, string>;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      other = await t.ownerHeaders('globex');
      admin = await t.roleHeaders('acme', 'admin');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    async function lastEntry(tenant: string) {
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'canonical'])
        .where('tenant_id', '=', tenant)
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      return { eventType: row.event_type, payload: JSON.parse(row.canonical).payload };
    }

    it('turns the kill switch on with a reason, which the token consume endpoint then honours', async () => {
      const missingReason = await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: admin,
        payload: { enabled: true },
      });
      assert.equal(missingReason.statusCode, 400);

      const minted = await mintDecisionToken(
        await t.services.signingKeys.signer('acme'),
        {
          intentId: 'i-1',
          tenantId: 'acme',
          adapterId: 'external',
          adapterTarget: 'acme/x',
          targetSystem: 'acme/x',
          proposedAction: 'merge',
        },
        t.clock(),
      );
      const on = await t.app.inject({
        method: 'PUT',
        url: '/v1/authority/kill-switch/acme',
        headers: admin,
        payload: { enabled: true, reason: 'incident 4711' },
      });
      assert.equal(on.statusCode, 200, on.body);
      assert.equal(on.json().enabled, true);
      assert.equal(on.json().reason, 'incident 4711');
      const tenant = (await t.app.inject({ method: 'GET', url: '/tenant', headers: agent })).json();
      assert.equal(tenant.killSwitch.enabled, true);
      assert.equal(tenant.killSwitch.changedBy, on.json().changedBy);
      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'killswitch.changed',
        payload: { enabled: true, reason: 'incident 4711', previous: { enabled: false, reason: null } },
      });

      const consume = await t.app.inject({
        method: 'POST',
        url: '/authority/tokens/consume',
        headers: agent,
        payload: { token: minted.token, adapterId: 'external', targetSystem: 'acme/x' },
      });
      assert.deepEqual(consume.json(), { valid: false, reason: 'TENANT_KILL_SWITCH' });

      const off = await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: admin,
        payload: { enabled: false },
      });
      assert.equal(off.statusCode, 200);
      const consumed = await t.app.inject({
        method: 'POST',
        url: '/authority/tokens/consume',
        headers: agent,
        payload: { token: minted.token, adapterId: 'external', targetSystem: 'acme/x' },
      });
      assert.equal(consumed.json().valid, true, 'the nonce was not spent while the switch was on');
    });

    it('refuses another tenant in the path and a role without the permission', async () => {
      const foreign = await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: other,
        payload: { enabled: true, reason: 'x' },
      });
      assert.equal(foreign.statusCode, 403);
      assert.equal(foreign.json().error.code, 'TENANT_MISMATCH');
      const forbidden = await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: agent,
        payload: { enabled: true, reason: 'x' },
      });
      assert.equal(forbidden.json().error.details.permission, 'authority:killswitch:write');
      const untouched = (await t.app.inject({ method: 'GET', url: '/tenant', headers: other })).json();
      assert.equal(untouched.killSwitch.enabled, false);
    });

    it('lets only an owner disable the floor, with the current agreement version, and re-enable it', async () => {
      assert.equal((await t.services.controls.floor('acme')).enabled, true, 'on by default');
      const byAdmin = await t.app.inject({
        method: 'PUT',
        url: '/authority/floor/acme',
        headers: admin,
        payload: { enabled: false, agreementVersion: '2026-01' },
      });
      assert.equal(byAdmin.statusCode, 403);
      assert.equal(byAdmin.json().error.details.permission, 'authority:floor:write');
      for (const agreementVersion of [undefined, '2025-12']) {
        const wrong = await t.app.inject({
          method: 'PUT',
          url: '/authority/floor/acme',
          headers: owner,
          payload: { enabled: false, agreementVersion },
        });
        assert.equal(wrong.statusCode, 400);
        assert.equal(wrong.json().error.details.issues[0].path, '/agreementVersion');
      }
      const off = await t.app.inject({
        method: 'PUT',
        url: '/authority/floor/acme',
        headers: owner,
        payload: { enabled: false, agreementVersion: '2026-01' },
      });
      assert.equal(off.statusCode, 200, off.body);
      assert.deepEqual([off.json().enabled, off.json().agreementVersion], [false, '2026-01']);
      assert.equal((await t.services.controls.floor('acme')).enabled, false);
      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'floor.changed',
        payload: { enabled: false, agreementVersion: '2026-01' },
      });
      assert.equal((await t.services.controls.floor('globex')).enabled, true, 'other tenants keep theirs');
      const on = await t.app.inject({
        method: 'PUT',
        url: '/authority/floor/acme',
        headers: owner,
        payload: { enabled: true },
      });
      assert.equal(on.json().enabled, true);
      assert.equal((await t.services.controls.floor('acme')).enabled, true);
    });

    it('blocks and re-activates actors, per tenant, audited', async () => {
      const blocked = await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: admin,
        payload: { status: 'blocked', reason: 'leaked key' },
      });
      assert.equal(blocked.statusCode, 200, blocked.body);
      assert.equal(blocked.json().status, 'blocked');
      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'actor.changed',
        payload: { actorId: 'agent-7', status: 'blocked', reason: 'leaked key' },
      });
      await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: admin,
        payload: { status: 'active' },
      });
      const list = (await t.app.inject({ method: 'GET', url: '/authority/actors', headers: admin })).json();
      assert.deepEqual(
        list.actors.map((a: { actorId: string; status: string }) => [a.actorId, a.status]),
        [['agent-7', 'active']],
      );
      const otherList = (
        await t.app.inject({ method: 'GET', url: '/authority/actors', headers: other })
      ).json();
      assert.deepEqual(otherList.actors, []);
      const bad = await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: admin,
        payload: { status: 'banned' },
      });
      assert.equal(bad.statusCode, 400);
      const forbidden = await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: agent,
        payload: { status: 'blocked' },
      });
      assert.equal(forbidden.json().error.details.permission, 'authority:policy:write');
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/authority/actors', headers: agent })).json().error.details
          .permission,
        'authority:policy:read',
      );
    });
  });
}
