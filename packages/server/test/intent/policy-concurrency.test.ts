import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`policy changes made at once build on each other (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
    });
    after(async () => {
      await t.close();
    });

    const install = (pack: string) =>
      t.app.inject({ method: 'POST', url: '/policy-packs/install', headers: owner, payload: { pack } });
    it('installs packs at once: every one ends up installed, each once', async () => {
      const packs = ['github-safe-merge', 'production-change-control', 'sensitive-data-guard', 'mcp-basics'];
      const answers = await Promise.all([...packs, ...packs].map(install));
      const statuses = answers.map((a) => a.statusCode).sort();
      assert.deepEqual(
        statuses,
        [201, 201, 201, 201, 409, 409, 409, 409],
        answers.map((a) => a.body).join('\n'),
      );
      const policy = (await t.app.inject({ method: 'GET', url: '/authority/policy', headers: owner })).json();
      assert.deepEqual([...policy.packs].sort(), ['starter', ...packs].sort());
    });

    it('keeps a pack installed while rules are saved, and the rules saved while a pack is installed', async () => {
      for (let round = 0; round < 5; round += 1) {
        const tenant = `race-${round}`;
        const headers = await t.ownerHeaders(tenant);
        const [saved, installed] = await Promise.all([
          t.app.inject({
            method: 'POST',
            url: '/authority/policy',
            headers,
            payload: {
              rules: [
                { id: 'custom', effect: 'DENY', conditions: { all: [{ path: 'args.x', op: 'EXISTS' }] } },
              ],
              activate: true,
            },
          }),
          t.app.inject({
            method: 'POST',
            url: '/policy-packs/install',
            headers,
            payload: { pack: 'mcp-basics' },
          }),
        ]);
        assert.equal(saved.statusCode, 201, saved.body);
        assert.equal(installed.statusCode, 201, installed.body);
        const policy = (await t.app.inject({ method: 'GET', url: '/authority/policy', headers })).json();
        const ids = (policy.rules as { id: string }[]).map((r) => r.id);
        assert.ok(policy.packs.includes('mcp-basics'), `round ${round}: ${policy.packs}`);
        assert.ok(ids.includes('custom'), `round ${round}: ${ids}`);
        assert.ok(
          ids.some((id) => id.startsWith('mcp-basics/')),
          `round ${round}: ${ids}`,
        );
      }
    });
  });
}
