import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`settings changed at once: none lost, each audited against the one it replaced (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
    });
    after(async () => {
      await t.close();
    });

    /** The payloads of the tenant's entries of one event type, in chain order. */
    async function payloadsOf(eventType: string): Promise<Record<string, unknown>[]> {
      const exported = await t.app.inject({ method: 'GET', url: '/audit/acme/export', headers: owner });
      return exported.body
        .split('\n')
        .filter((line) => line !== '')
        .map(
          (line) => JSON.parse(line) as { entry?: { eventType: string; payload: Record<string, unknown> } },
        )
        .flatMap((line) => (line.entry?.eventType === eventType ? [line.entry.payload] : []));
    }

    it('applies threshold patches made at once each to the result of the others', async () => {
      const patches = [
        { escalateAt: 41 },
        { denyAt: 91 },
        { lowConfidenceEscalateBelow: 0.41 },
        { approvalTtlSeconds: 4_100 },
        { tokenTtlSeconds: 41 },
      ];
      const answers = await Promise.all(
        patches.map((payload) =>
          t.app.inject({ method: 'PUT', url: '/authority/thresholds/acme', headers: owner, payload }),
        ),
      );
      assert.ok(
        answers.every((a) => a.statusCode === 200),
        answers.map((a) => a.body).join('\n'),
      );
      const stored = (
        await t.app.inject({ method: 'GET', url: '/authority/thresholds/acme', headers: owner })
      ).json();
      for (const patch of patches) {
        for (const [field, value] of Object.entries(patch)) assert.equal(stored[field], value, field);
      }
      const entries = await payloadsOf('thresholds.updated');
      assert.equal(entries.length, patches.length);
      for (let i = 1; i < entries.length; i += 1) {
        assert.deepEqual(entries[i]?.old, entries[i - 1]?.new, `entry ${i} replaced the one before it`);
      }
    });

    it('records with each kill switch change the state it replaced', async () => {
      const changes = Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0 ? { enabled: true, reason: `drill ${i}` } : { enabled: false },
      );
      const answers = await Promise.all(
        changes.map((payload) =>
          t.app.inject({ method: 'PUT', url: '/authority/kill-switch/acme', headers: owner, payload }),
        ),
      );
      assert.ok(
        answers.every((a) => a.statusCode === 200),
        answers.map((a) => a.body).join('\n'),
      );
      const entries = await payloadsOf('killswitch.changed');
      assert.equal(entries.length, changes.length);
      for (let i = 1; i < entries.length; i += 1) {
        const previous = entries[i]?.previous as { enabled: boolean; reason: string | null };
        assert.deepEqual(
          { enabled: previous.enabled, reason: previous.reason },
          { enabled: entries[i - 1]?.enabled, reason: entries[i - 1]?.reason },
          `entry ${i}`,
        );
      }
    });

    it('records with each IP allowlist change the list it replaced', async () => {
      const lists = Array.from({ length: 6 }, (_, i) => ['127.0.0.1', `198.51.100.${i}`]);
      const answers = await Promise.all(
        lists.map((cidrs) =>
          t.app.inject({ method: 'PUT', url: '/tenant/ip-allowlist', headers: owner, payload: { cidrs } }),
        ),
      );
      assert.ok(
        answers.every((a) => a.statusCode === 200),
        answers.map((a) => a.body).join('\n'),
      );
      const entries = await payloadsOf('tenant.ip_allowlist.changed');
      assert.equal(entries.length, lists.length);
      for (let i = 1; i < entries.length; i += 1) {
        assert.deepEqual(entries[i]?.previous, entries[i - 1]?.cidrs, `entry ${i}`);
      }
      await t.app.inject({
        method: 'PUT',
        url: '/tenant/ip-allowlist',
        headers: owner,
        payload: { cidrs: [] },
      });
    });
  });
}
