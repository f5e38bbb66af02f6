import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EdgeVerifier } from '@authority-runtime/sdk';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/free-port.js';
import { ENGINES } from '../helpers/storage.js';
import { ACTOR, issueToken } from './fixtures.js';

/**
 * The SDK's EdgeVerifier against the real service on a real port: it pulls the physical JWKS and
 * the revocation feed, verifies tokens the physical signer minted, and reports back in batches.
 */
for (const engine of ENGINES) {
  describe(`EdgeVerifier against the running service (${engine})`, () => {
    let t: TestApp;
    let baseUrl: string;
    let edgeKey: string;
    let owner: Headers;

    before(async () => {
      // The address the cell reaches the service at is its PUBLIC_BASE_URL, the tokens' iss.
      const port = await freePort();
      t = await createTestApp(engine, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
      owner = await t.ownerHeaders('acme');
      await t.createTenant('globex');
      edgeKey = (await t.services.apiKeys.create('acme', { name: 'cell-4', role: 'edge' }, null)).key;
      await t.app.listen({ host: '127.0.0.1', port });
      baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    });
    after(async () => {
      await t.close();
    });

    const verifier = () =>
      new EdgeVerifier({
        baseUrl,
        apiKey: edgeKey,
        tenantId: 'acme',
        edgeNodeId: 'cell-4-controller',
        actorIdentity: ACTOR,
        clock: () => t.clock(),
        jwksMinRefetchIntervalMs: 0,
      });

    it('verifies a token of the physical signer, reports it, and sees it in the audit entry', async () => {
      const edge = verifier();
      await edge.sync();
      const issued = await issueToken(t, 'acme');
      const result = await edge.verify(issued.token);
      assert.equal(result.valid, true, JSON.stringify(result));
      if (result.valid) {
        assert.equal(result.claims.jti, issued.jti);
        assert.equal(result.claims.service.tenantId, 'acme');
      }
      const flushed = await edge.flushReports();
      assert.deepEqual(flushed, { delivered: 1, refused: 0, pending: 0 });
      const entry = await t.app.inject({
        method: 'GET',
        url: `/v1/physical/audit/${issued.jti}`,
        headers: owner,
      });
      assert.deepEqual(entry.json().verifications, [
        { atMs: t.clock(), edgeNodeId: 'cell-4-controller', result: 'accepted' },
      ]);
    });

    it('rejects a revoked token after the next sync, and reports the rejection with its reason', async () => {
      const edge = verifier();
      await edge.sync();
      const issued = await issueToken(t, 'acme');
      assert.equal((await edge.verify(issued.token)).valid, true);
      const revoked = await t.app.inject({
        method: 'POST',
        url: `/v1/physical/authority-tokens/${issued.jti}/revoke`,
        headers: owner,
        payload: { reason: 'lost controller' },
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const synced = await edge.sync();
      assert.ok(synced.revocationsReceived >= 1);
      assert.equal(synced.asOfMs, revoked.json().revokedAtMs);
      const result = await edge.verify(issued.token);
      assert.equal(result.valid, false);
      if (!result.valid) assert.equal(result.reason, 'TOKEN_REVOKED');
      await edge.flushReports();
      const entry = (await t.services.physical.audit.get('acme', issued.jti))?.verifications;
      assert.deepEqual(
        entry?.map((v) => [v.result, v.reason]),
        [
          ['accepted', undefined],
          ['rejected', 'TOKEN_REVOKED'],
        ],
      );
    });

    it('follows a rotation: the new kid is fetched on first sight, tokens of the previous key still verify', async () => {
      const edge = verifier();
      await edge.sync();
      const before = await issueToken(t, 'acme');
      assert.equal((await edge.verify(before.token)).valid, true);
      const rotation = await t.services.physical.signer.rotate();
      assert.equal(rotation.previous?.kid, before.kid);
      const after = await issueToken(t, 'acme');
      assert.equal(after.kid, rotation.active.kid);
      assert.equal((await edge.verify(after.token)).valid, true, 'unknown kid: JWKS fetched again');
      assert.equal((await edge.verify(before.token)).valid, true, 'the PREVIOUS key still verifies');
    });

    it("refuses another tenant's token and an expired one", async () => {
      const edge = verifier();
      await edge.sync();
      const foreign = await issueToken(t, 'globex');
      const refused = await edge.verify(foreign.token);
      assert.equal(refused.valid, false);
      if (!refused.valid) assert.equal(refused.reason, 'TOKEN_TENANT_MISMATCH');
      const issued = await issueToken(t, 'acme', { deadlineMs: 1_000 });
      t.clock.advance(1_000 + 250);
      await edge.sync();
      const expired = await edge.verify(issued.token);
      assert.equal(expired.valid, false);
      if (!expired.valid) assert.equal(expired.reason, 'TOKEN_EXPIRED');
      // Reports about another tenant's token are never sent; this one is refused by nobody.
      assert.deepEqual(await edge.flushReports(), { delivered: 1, refused: 0, pending: 0 });
    });
  });
}
