// Time-boxed rules over HTTP (contract §4.5, §16): a rule with `activeFrom`/`activeUntil` decides
// only inside its window, measured by the service's clock at decision time, and the explanation
// says when it is inactive; bad windows are refused when the policy is saved.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { activatePolicy, intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

const HOUR = 3_600_000;

for (const engine of ENGINES) {
  describe(`time-boxed rules (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let from: string;
    let until: string;

    const submit = (explain = false) =>
      t.app.inject({
        method: 'POST',
        url: explain ? '/intent?explain=true' : '/intent',
        headers: agent,
        payload: intentPayload('push the fix'),
      });
    const freezeEntry = (body: {
      authorityDecision: { explanation?: { ruleId: string; failed: Record<string, unknown> }[] };
    }) => body.authorityDecision.explanation?.find((e) => e.ruleId === 'freeze-pushes');

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      from = new Date(t.clock() + HOUR).toISOString();
      until = new Date(t.clock() + 2 * HOUR).toISOString();
      const saved = await activatePolicy(t.app, owner, [
        {
          id: 'freeze-pushes',
          effect: 'DENY',
          activeFrom: from,
          activeUntil: until,
          conditions: { all: [{ path: 'proposedAction', op: 'MATCHES', value: '(?i)push' }] },
        },
      ]);
      assert.equal(saved.statusCode, 201, saved.body);
    });
    after(async () => {
      await t.close();
    });

    it('does not decide before its window, and the explanation says until when', async () => {
      const before = await submit(true);
      assert.equal(before.statusCode, 202, before.body);
      assert.equal(before.json().authorityDecision.decidingRule.id, 'starter/escalate-writes');
      const entry = freezeEntry(before.json());
      assert.deepEqual(entry, {
        ruleId: 'freeze-pushes',
        effect: 'DENY',
        failed: { kind: 'inactive', reason: `inactive until ${from}`, until: from },
      });
    });

    it('decides inside its window, from activeFrom included', async () => {
      t.clock.advance(HOUR);
      const inside = await submit();
      assert.equal(inside.statusCode, 403, inside.body);
      assert.equal(inside.json().authorityDecision.decidingRule.id, 'freeze-pushes');
    });

    it('stops at activeUntil, excluded, and the explanation says since when', async () => {
      t.clock.advance(HOUR);
      const afterwards = await submit(true);
      assert.equal(afterwards.statusCode, 202, afterwards.body);
      assert.deepEqual(freezeEntry(afterwards.json())?.failed, {
        kind: 'inactive',
        reason: `inactive since ${until}`,
        since: until,
      });
    });

    it('refuses a window that ends before it starts, or a time without an offset, naming the field', async () => {
      for (const [rule, path] of [
        [{ activeFrom: until, activeUntil: from }, 'activeUntil'],
        [{ activeFrom: '2026-01-01T10:00:00' }, 'activeFrom'],
      ] as const) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/authority/policy',
          headers: owner,
          payload: { rules: [{ id: 'bad-window', effect: 'DENY', ...rule }] },
        });
        assert.equal(response.statusCode, 400, response.body);
        assert.ok(
          JSON.stringify(response.json().error.details).includes(path),
          `${path} named in ${response.body}`,
        );
      }
    });
  });
}
