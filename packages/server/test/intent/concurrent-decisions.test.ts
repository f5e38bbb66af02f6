import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

type Headers = Record<string, string>;

for (const engine of ENGINES) {
  describe(`concurrent decisions share commits without sharing chain positions (${engine})`, () => {
    let t: TestApp;
    const agents: Record<string, Headers> = {};
    const owners: Record<string, Headers> = {};

    before(async () => {
      t = await createTestApp(engine);
      owners.acme = await t.ownerHeaders('acme');
      owners.globex = await t.ownerHeaders('globex');
      agents.acme = await t.roleHeaders('acme', 'agent');
      agents.globex = await t.roleHeaders('globex', 'agent');
    });
    after(async () => {
      await t.close();
    });

    it('answers 60 concurrent intents of two tenants each with its own entries and latest hash, in one valid chain per tenant', async () => {
      const actions = ['list open pull requests', 'delete the production database', 'merge pull request 9'];
      const requests = Array.from({ length: 60 }, (_, i) => {
        const tenantId = i % 2 === 0 ? 'acme' : 'globex';
        return { tenantId, payload: intentPayload(actions[i % 3] as string, {}, tenantId) };
      });
      const responses = await Promise.all(
        requests.map(({ tenantId, payload }) =>
          t.app.inject({ method: 'POST', url: '/intent', headers: agents[tenantId], payload }),
        ),
      );
      const seen = new Set<string>();
      for (const [i, response] of responses.entries()) {
        assert.ok([200, 202, 403].includes(response.statusCode), response.body);
        const body = response.json();
        const tenantId = requests[i]?.tenantId as string;
        const entries = await t.storage.db
          .selectFrom('audit_entries')
          .select(['idx', 'entry_hash', 'intent_id'])
          .where('tenant_id', '=', tenantId)
          .where('intent_id', '=', body.intentId)
          .orderBy('idx')
          .execute();
        assert.equal(entries.length, body.audit.entriesWritten);
        assert.equal(entries.at(-1)?.entry_hash, body.audit.latestHash);
        // An intent's entries are contiguous: no other decision's entry sits between them.
        assert.equal(Number(entries.at(-1)?.idx) - Number(entries[0]?.idx), entries.length - 1);
        assert.ok(!seen.has(body.audit.latestHash));
        seen.add(body.audit.latestHash);
        const stored = await t.app.inject({
          method: 'GET',
          url: `/intent/${body.intentId}`,
          headers: agents[tenantId],
        });
        assert.equal(stored.statusCode, 200);
      }
      for (const tenantId of ['acme', 'globex']) {
        const verify = await t.app.inject({
          method: 'POST',
          url: '/audit/verify-chain',
          headers: owners[tenantId],
        });
        assert.equal(verify.json().valid, true, verify.body);
      }
    });
  });
}
