import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EdgeVerifier } from '@authority-runtime/sdk';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/free-port.js';
import { ENGINES } from '../helpers/storage.js';
import { clearState, ROBOT, tokenBody } from './fixtures.js';

/**
 * The physical loop over real sockets, as a robot cell runs it: the planner obtains a token over
 * HTTP, the cell's SDK EdgeVerifier (JWKS and revocations pulled from the service) accepts it; the
 * token is revoked, the verifier syncs and rejects it with TOKEN_REVOKED, and both reports land in
 * the token's audit entry.
 */
for (const engine of ENGINES) {
  describe(`physical authority end to end over HTTP (${engine})`, () => {
    let t: TestApp;
    let base: string;
    let owner: Headers;
    let agent: Headers;
    let edgeKey: string;

    before(async () => {
      // The service's PUBLIC_BASE_URL is the address the cell reaches it at: tokens carry it as iss.
      const port = await freePort();
      t = await createTestApp(engine, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
      owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
      agent = await t.roleHeaders('acme', 'agent');
      edgeKey = (await t.services.apiKeys.create('acme', { name: 'cell-4', role: 'edge' }, null)).key;
      await t.app.listen({ host: '127.0.0.1', port });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await t.close();
    });

    async function call(method: string, path: string, headers: Headers, body?: unknown) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    it('issue → edge accepts → revoke → edge syncs and rejects TOKEN_REVOKED → reports in the audit entry', async () => {
      const actor = await call('POST', '/v1/physical/actors', owner, {
        actorIdentity: ROBOT,
        actorKind: 'robot',
      });
      assert.equal(actor.status, 200, JSON.stringify(actor.body));

      const edge = new EdgeVerifier({
        baseUrl: `${base}/v1`,
        apiKey: edgeKey,
        tenantId: 'acme',
        edgeNodeId: 'cell-4-controller',
        actorIdentity: ROBOT,
        clock: () => t.clock(),
      });
      await edge.sync();

      const issued = await call(
        'POST',
        '/v1/physical/authority-tokens',
        { ...agent, 'idempotency-key': 'pick-tote-17:1' },
        tokenBody({ physicalState: clearState(t.clock()) }),
      );
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal(issued.body.decision, 'ALLOW');
      const token = issued.body.token as string;
      const jti = issued.body.tokenJti as string;

      const accepted = await edge.verify(token);
      assert.equal(accepted.valid, true, JSON.stringify(accepted));
      if (accepted.valid) {
        assert.equal(accepted.claims.jti, jti);
        assert.equal(accepted.claims.service.dagNodeId, 'pick-tote-17');
      }

      t.clock.advance(500);
      const revoked = await call('POST', `/v1/physical/authority-tokens/${jti}/revoke`, owner, {
        reason: 'operator pulled the cell',
      });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      const synced = await edge.sync();
      assert.equal(synced.asOfMs, revoked.body.revokedAtMs);
      const rejected = await edge.verify(token);
      assert.equal(rejected.valid, false);
      if (!rejected.valid) assert.equal(rejected.reason, 'TOKEN_REVOKED');

      assert.deepEqual(await edge.flushReports(), { delivered: 2, refused: 0, pending: 0 });
      const entry = await call('GET', `/v1/physical/audit/${jti}`, owner);
      assert.equal(entry.status, 200, JSON.stringify(entry.body));
      assert.deepEqual(entry.body.verifications, [
        { atMs: t.clock() - 500, edgeNodeId: 'cell-4-controller', result: 'accepted' },
        { atMs: t.clock(), edgeNodeId: 'cell-4-controller', result: 'rejected', reason: 'TOKEN_REVOKED' },
      ]);
      assert.deepEqual(entry.body.revocation, {
        revokedAtMs: revoked.body.revokedAtMs,
        reason: 'operator pulled the cell',
      });
    });
  });
}
