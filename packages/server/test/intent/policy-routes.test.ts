import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`policy versions and packs (${engine})`, () => {
    let t: TestApp;
    let owner: Record<string, string>;
    let auditor: Record<string, string>;
    let agent: Record<string, string>;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      auditor = await t.roleHeaders('acme', 'auditor');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    it('starts every tenant on the starter pack as version 1', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/authority/policy', headers: auditor });
      assert.equal(response.statusCode, 200, response.body);
      const policy = response.json();
      assert.deepEqual([policy.version, policy.active, policy.packs], [1, true, ['starter']]);
      assert.deepEqual(policy.rules.map((r: { id: string }) => r.id).sort(), [
        'starter/allow-reads',
        'starter/escalate-writes',
      ]);
      const installed = (
        await t.app.inject({ method: 'GET', url: '/policy-packs/installed', headers: auditor })
      ).json();
      assert.deepEqual(
        installed.packs.map((p: { id: string }) => p.id),
        ['starter'],
      );
      const forbidden = await t.app.inject({ method: 'GET', url: '/authority/policy', headers: agent });
      assert.equal(forbidden.json().error.details.permission, 'authority:policy:read');
    });

    it('refuses invalid rules at save, naming the rule and the field', async () => {
      for (const [rule, fragment] of [
        [
          {
            id: 'look',
            effect: 'DENY',
            conditions: { all: [{ path: 'proposedAction', op: 'MATCHES', value: '(?=x)' }] },
          },
          'look',
        ],
        [
          {
            id: 'back',
            effect: 'DENY',
            conditions: { all: [{ path: 'args', op: 'MATCHES', value: '(a)\\1' }] },
          },
          'back',
        ],
        [{ id: 'path', effect: 'DENY', conditions: { all: [{ path: 'nowhere.x', op: 'EXISTS' }] } }, 'path'],
        [{ id: 'op', effect: 'DENY', conditions: { all: [{ path: 'args.x', op: 'LIKE', value: 1 }] } }, 'op'],
        [{ id: 'catastrophic-floor', effect: 'ALLOW' }, 'catastrophic-floor'],
        [{ id: 'pack/rule', effect: 'ALLOW' }, 'pack/rule'],
      ] as const) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/authority/policy',
          headers: owner,
          payload: { rules: [rule] },
        });
        assert.equal(response.statusCode, 400, JSON.stringify(rule));
        assert.ok(response.json().error.message.includes(fragment), response.body);
      }
      const versions = (
        await t.app.inject({ method: 'GET', url: '/authority/policy/versions', headers: owner })
      ).json();
      assert.equal(versions.versions.length, 1, 'nothing was stored');
    });

    it('saves a version without activating it unless asked, and activates stored versions', async () => {
      const saved = await t.app.inject({
        method: 'POST',
        url: '/authority/policy',
        headers: owner,
        payload: {
          rules: [
            {
              id: 'deny-prod',
              effect: 'DENY',
              conditions: { all: [{ path: 'risk.production', op: 'EQ', value: true }] },
            },
          ],
        },
      });
      assert.equal(saved.statusCode, 201, saved.body);
      assert.deepEqual([saved.json().version, saved.json().active], [2, false]);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/authority/policy', headers: owner })).json().version,
        1,
      );
      const activated = await t.app.inject({
        method: 'POST',
        url: '/authority/policy/versions/2/activate',
        headers: owner,
      });
      assert.equal(activated.statusCode, 200, activated.body);
      assert.equal(activated.json().active, true);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/authority/policy', headers: owner })).json().version,
        2,
      );
      const missing = await t.app.inject({
        method: 'POST',
        url: '/authority/policy/versions/99/activate',
        headers: owner,
      });
      assert.equal(missing.statusCode, 404);
      // A version number written any other way than in decimal digits is refused, never read as
      // another version (1.9 is not version 1, 1e0 not 1, 0x2 not 2).
      for (const written of ['1.9', '1e0', '0x2', '%201']) {
        const odd = await t.app.inject({
          method: 'POST',
          url: `/authority/policy/versions/${written}/activate`,
          headers: owner,
        });
        assert.equal(odd.statusCode, 400, `${written}: ${odd.body}`);
        assert.equal(odd.json().error.code, 'VALIDATION_ERROR');
        assert.ok(
          odd.json().error.details.issues.some((issue: { path: string }) => issue.path === 'params/version'),
          odd.body,
        );
      }
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/authority/policy', headers: owner })).json().version,
        2,
      );
      const events = await t.storage.db
        .selectFrom('audit_entries')
        .select('event_type')
        .where('tenant_id', '=', 'acme')
        .execute();
      assert.ok(events.some((e) => e.event_type === 'policy.activated'));
      assert.ok(events.some((e) => e.event_type === 'policy.saved'));
    });

    it('lists the catalog and installs a pack once, as a new active version', async () => {
      const catalog = (await t.app.inject({ method: 'GET', url: '/policy-packs', headers: auditor })).json();
      const ids = catalog.packs.map((p: { id: string }) => p.id);
      for (const id of ['starter', 'github-safe-merge', 'production-change-control', 'sensitive-data-guard'])
        assert.ok(ids.includes(id));
      assert.ok(
        catalog.packs.every(
          (p: { description: string; rules: unknown[] }) => p.description.length > 0 && p.rules.length > 0,
        ),
      );

      const installed = await t.app.inject({
        method: 'POST',
        url: '/policy-packs/install',
        headers: owner,
        payload: { pack: 'sensitive-data-guard' },
      });
      assert.equal(installed.statusCode, 201, installed.body);
      assert.equal(installed.json().policy.active, true);
      assert.ok(
        installed.json().policy.rules.some((r: { id: string }) => r.id.startsWith('sensitive-data-guard/')),
      );
      assert.ok(
        installed.json().policy.rules.some((r: { id: string }) => r.id === 'deny-prod'),
        'the active rules are kept',
      );
      const twice = await t.app.inject({
        method: 'POST',
        url: '/policy-packs/install',
        headers: owner,
        payload: { pack: 'sensitive-data-guard' },
      });
      assert.equal(twice.statusCode, 409);
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/policy-packs/install',
        headers: owner,
        payload: { pack: 'nope' },
      });
      assert.equal(unknown.statusCode, 404);
      const list = (
        await t.app.inject({ method: 'GET', url: '/policy-packs/installed', headers: owner })
      ).json();
      assert.deepEqual(
        list.packs.map((p: { id: string }) => p.id),
        ['starter', 'sensitive-data-guard'],
      );
      const replaced = await t.app.inject({
        method: 'POST',
        url: '/authority/policy',
        headers: owner,
        payload: { rules: [{ id: 'only', effect: 'ALLOW' }], replacePacks: true, activate: true },
      });
      assert.deepEqual(
        replaced.json().rules.map((r: { id: string }) => r.id),
        ['only'],
      );
      assert.deepEqual(replaced.json().packs, []);
    });

    it('holds the policy limits for the version as stored: the rules sent with the pack rules kept, on save, install and simulation', async () => {
      const inject = (method: 'POST', url: string, payload: Record<string, unknown>) =>
        t.app.inject({ method, url, headers: owner, payload });
      const bareArgs = (n: number) =>
        Array.from({ length: n }, (_, i) => ({
          id: `bare-${i}`,
          effect: 'DENY',
          conditions: { all: [{ path: 'args', op: 'MATCHES', value: `secret-${i}` }] },
        }));
      const base = await inject('POST', '/authority/policy', {
        rules: bareArgs(50),
        replacePacks: true,
        activate: true,
      });
      assert.equal(base.statusCode, 201, base.body);
      // The pack's own bare-args MATCHES would make 51: refused, naming the limit.
      const install = await inject('POST', '/policy-packs/install', { pack: 'sensitive-data-guard' });
      assert.equal(install.statusCode, 400, install.body);
      assert.match(install.json().error.message, /at most 50 bare-args MATCHES conditions/);
      // With 48 of ours the pack fits; saving 50 again next to it does not.
      assert.equal(
        (
          await inject('POST', '/authority/policy', {
            rules: bareArgs(48),
            replacePacks: true,
            activate: true,
          })
        ).statusCode,
        201,
      );
      assert.equal(
        (await inject('POST', '/policy-packs/install', { pack: 'sensitive-data-guard' })).statusCode,
        201,
      );
      const resave = await inject('POST', '/authority/policy', { rules: bareArgs(50), activate: true });
      assert.equal(resave.statusCode, 400, resave.body);
      assert.match(
        resave.json().error.details.issues[0].message,
        /with the pack rules it keeps, the policy is over a limit/,
      );
      // A simulation's draft is the version a save would store: refused alike.
      const simulated = await inject('POST', '/authority/policy/simulate', { rules: bareArgs(50) });
      assert.equal(simulated.statusCode, 400, simulated.body);
      const packRules = (await inject('POST', '/authority/policy/simulate', { rules: [] })).statusCode;
      assert.equal(packRules, 200);
      const many = Array.from({ length: 2_000 }, (_, i) => ({ id: `r-${i}`, effect: 'ALLOW' }));
      for (const url of ['/authority/policy', '/authority/policy/simulate']) {
        const refused = await inject('POST', url, { rules: many });
        assert.equal(refused.statusCode, 400, url);
        assert.match(refused.body, /a policy holds at most 2000 rules \(got 20\d\d\)/, url);
      }
    });
  });
}
