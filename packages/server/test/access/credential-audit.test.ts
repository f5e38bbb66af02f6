import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { chainEvents } from '../helpers/audit.js';
import { ENGINES } from '../helpers/storage.js';

/**
 * Contract §6: events about configuration, keys included, are in the tenant's chain. Creating or
 * revoking an API key and rotating a tenant secret each append one entry, with the ids and never
 * the secret.
 */
for (const engine of ENGINES) {
  describe(`credentials in the audit chain (${engine})`, () => {
    let t: TestApp;
    let owner: Record<string, string>;
    let ownerId: string;

    before(async () => {
      t = await createTestApp(engine);
      const { ownerKey } = await t.createTenant('acme');
      owner = bearer(ownerKey.key, 'acme');
      ownerId = ownerKey.id;
    });
    after(async () => {
      await t.close();
    });

    const canonicalText = async () =>
      (
        await t.storage.db
          .selectFrom('audit_entries')
          .select('canonical')
          .where('tenant_id', '=', 'acme')
          .execute()
      )
        .map((row) => row.canonical)
        .join('\n');

    it('records a key created or revoked through the API, by its principal, without the key', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/keys',
        headers: owner,
        payload: { name: 'ci', role: 'agent', scopes: ['intent:create'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const issued = created.json() as { id: string; key: string };
      assert.deepEqual(await chainEvents(t, 'acme', 'apikey.created'), [
        {
          actorId: ownerId,
          actorType: 'principal:api-key',
          correlationId: (await chainEvents(t, 'acme', 'apikey.created'))[0]?.correlationId,
          payload: {
            keyId: issued.id,
            name: 'ci',
            role: 'agent',
            scopes: ['intent:create'],
            expiresAt: null,
          },
        },
      ]);

      const revoke = () => t.app.inject({ method: 'DELETE', url: `/keys/${issued.id}`, headers: owner });
      assert.equal((await revoke()).statusCode, 204);
      assert.equal((await revoke()).statusCode, 204, 'revoking twice answers the same');
      const revoked = await chainEvents(t, 'acme', 'apikey.revoked');
      assert.deepEqual(
        revoked.map(({ actorId, payload }) => ({ actorId, payload })),
        [{ actorId: ownerId, payload: { keyId: issued.id, name: 'ci', role: 'agent' } }],
        'one entry: the second revocation changed nothing',
      );
      const text = await canonicalText();
      assert.ok(!text.includes(issued.key), 'the key is never in the chain');
      assert.ok(!text.includes(issued.key.slice(-20)));
    });

    it("records the command line's keys as the operator's", async () => {
      const issued = await t.services.apiKeys.create('acme', { name: 'from-cli', role: 'auditor' }, null);
      await t.services.apiKeys.revoke('acme', issued.id, null);
      for (const eventType of ['apikey.created', 'apikey.revoked']) {
        const entry = (await chainEvents(t, 'acme', eventType)).find((e) => e.payload.keyId === issued.id);
        assert.deepEqual(
          entry && { actorId: entry.actorId, actorType: entry.actorType },
          { actorId: 'authority-cli', actorType: 'operator' },
          eventType,
        );
      }
    });

    it('records each rotation of the evidence and permission secrets, with the ids and never the secret', async () => {
      const secrets: string[] = [];
      const ids: string[] = [];
      for (const kind of ['evidence', 'permission', 'evidence'] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/authority/secrets/${kind}/rotate`,
          headers: owner,
        });
        assert.equal(res.statusCode, 201, res.body);
        secrets.push(res.json().secret);
        ids.push(res.json().secretId);
      }
      const rotations = await chainEvents(t, 'acme', 'secret.rotated');
      assert.deepEqual(
        rotations.map(({ actorId, payload }) => ({ actorId, payload })),
        [
          { actorId: ownerId, payload: { kind: 'evidence', secretId: ids[0], previousSecretId: null } },
          { actorId: ownerId, payload: { kind: 'permission', secretId: ids[1], previousSecretId: null } },
          { actorId: ownerId, payload: { kind: 'evidence', secretId: ids[2], previousSecretId: ids[0] } },
        ],
      );
      const text = await canonicalText();
      for (const secret of secrets) assert.ok(!text.includes(secret));
      const verified = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers: owner });
      assert.equal(verified.json().valid, true, verified.body);
    });
  });
}
