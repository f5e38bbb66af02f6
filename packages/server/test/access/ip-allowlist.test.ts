import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { createUser, PASSWORD } from './portal-helpers.js';

function assertError(res: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().error.code, code, res.body);
}

for (const engine of ENGINES) {
  describe(`IP allowlists (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' });
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      other = await t.ownerHeaders('globex');
    });
    after(async () => {
      await t.close();
    });

    const from = (remoteAddress: string, headers: Headers, url = '/tenant') =>
      t.app.inject({ method: 'GET', url, headers, remoteAddress });
    const put = (headers: Headers, cidrs: unknown, remoteAddress = '127.0.0.1') =>
      t.app.inject({
        method: 'PUT',
        url: '/tenant/ip-allowlist',
        headers,
        remoteAddress,
        payload: { cidrs } as object,
      });

    it('refuses bad entries by index, too many entries, and a list that would lock the caller out', async () => {
      const bad = await put(owner, ['10.0.0.0/8', 'not-an-ip', '10.0.0.0/40']);
      assertError(bad, 400, 'VALIDATION_ERROR');
      assert.deepEqual(
        bad.json().error.details.issues.map((issue: { path: string }) => issue.path),
        ['/cidrs/1', '/cidrs/2'],
      );
      assertError(
        await put(
          owner,
          Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`),
        ),
        400,
        'VALIDATION_ERROR',
      );
      assertError(await put(owner, 'x'), 400, 'VALIDATION_ERROR');
      const lockout = await put(owner, ['203.0.113.0/24']);
      assertError(lockout, 400, 'VALIDATION_ERROR');
      assert.match(lockout.json().error.message, /127\.0\.0\.1/);
      assert.deepEqual((await from('198.51.100.1', owner)).json().ipAllowlist, [], 'nothing was stored');
    });

    it('needs tenant:admin', async () => {
      const admin = await t.roleHeaders('acme', 'admin');
      const res = await put(admin, ['127.0.0.1']);
      assertError(res, 403, 'FORBIDDEN');
      assert.equal(res.json().error.details.permission, 'tenant:admin');
    });

    it('stores the normalized list, audits the change, and enforces it at once for IPv4 and IPv6', async () => {
      const res = await put(owner, ['127.0.0.1', '203.0.113.77/24', '2001:DB8::/32', '203.0.113.0/24']);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().ipAllowlist, ['127.0.0.1/32', '203.0.113.0/24', '2001:db8::/32']);
      const entry = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'canonical'])
        .where('tenant_id', '=', 'acme')
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(entry.event_type, 'tenant.ip_allowlist.changed');
      assert.deepEqual(JSON.parse(entry.canonical).payload, {
        cidrs: ['127.0.0.1/32', '203.0.113.0/24', '2001:db8::/32'],
        previous: [],
      });

      for (const address of ['127.0.0.1', '203.0.113.5', '::ffff:203.0.113.5', '2001:db8:7::1']) {
        assert.equal((await from(address, owner)).statusCode, 200, address);
      }
      for (const address of ['198.51.100.1', '203.0.114.5', '2001:db9::1', '::1']) {
        assertError(await from(address, owner), 403, 'IP_NOT_ALLOWED');
      }
      // Every route of the tenant, whatever the permission; other tenants are not affected.
      assertError(await from('198.51.100.1', agent, '/intents'), 403, 'IP_NOT_ALLOWED');
      assert.equal((await from('198.51.100.1', other)).statusCode, 200);
    });

    it('comes after the credential and tenant checks and before the permission check', async () => {
      const outside = '198.51.100.1';
      assertError(
        await from(outside, {
          authorization: `Bearer service_live_${'A'.repeat(43)}`,
          'x-tenant-id': 'acme',
        }),
        401,
        'UNAUTHORIZED',
      );
      assertError(await from(outside, { ...owner, 'x-tenant-id': 'globex' }), 403, 'TENANT_MISMATCH');
      assertError(await from(outside, agent, '/keys'), 403, 'IP_NOT_ALLOWED');
      assertError(await from('203.0.113.5', agent, '/keys'), 403, 'FORBIDDEN');
    });

    it('applies to portal logins and portal sessions', async () => {
      const user = await createUser(t, 'acme', 'auditor');
      const outside = await t.app.inject({
        method: 'POST',
        url: '/portal/login',
        remoteAddress: '198.51.100.2',
        payload: { tenantId: 'acme', email: user.email, password: PASSWORD },
      });
      assertError(outside, 403, 'IP_NOT_ALLOWED');
      const failed = await t.storage.db
        .selectFrom('audit_entries')
        .select('canonical')
        .where('tenant_id', '=', 'acme')
        .where('event_type', '=', 'portal.login.failed')
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(failed.canonical).payload, {
        email: user.email,
        reason: 'ip_not_allowed',
        clientAddress: '198.51.100.2',
      });
      // A wrong password from outside is still just a wrong password (credentials come first).
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/portal/login',
        remoteAddress: '198.51.100.2',
        payload: { tenantId: 'acme', email: user.email, password: 'wrong password here' },
      });
      assertError(wrong, 401, 'UNAUTHORIZED');

      const session = await t.app.inject({
        method: 'POST',
        url: '/portal/login',
        remoteAddress: '203.0.113.9',
        payload: { tenantId: 'acme', email: user.email, password: PASSWORD },
      });
      assert.equal(session.statusCode, 200, session.body);
      const headers = { 'x-portal-session-id': session.json().sessionId, 'x-tenant-id': 'acme' };
      assert.equal((await from('203.0.113.9', headers)).statusCode, 200);
      assertError(await from('198.51.100.3', headers), 403, 'IP_NOT_ALLOWED');
    });

    it('an empty list allows every address again', async () => {
      const res = await put(owner, [], '203.0.113.5');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().ipAllowlist, []);
      assert.equal((await from('198.51.100.1', owner)).statusCode, 200);
    });
  });

  describe(`IP allowlists behind trusted proxies (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0', TRUST_PROXY: '10.0.0.0/8, fd00::/8' });
      owner = await t.ownerHeaders('acme');
      const set = await t.app.inject({
        method: 'PUT',
        url: '/tenant/ip-allowlist',
        headers: { ...owner, 'x-forwarded-for': '203.0.113.5' },
        remoteAddress: '10.0.0.2',
        payload: { cidrs: ['203.0.113.0/24', '2001:db8::/32'] },
      });
      assert.equal(set.statusCode, 200, set.body);
    });
    after(async () => {
      await t.close();
    });

    const via = (remoteAddress: string, forwardedFor?: string) =>
      t.app.inject({
        method: 'GET',
        url: '/tenant',
        remoteAddress,
        headers: { ...owner, ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
      });

    it('uses the rightmost x-forwarded-for hop outside the trusted proxies', async () => {
      assert.equal((await via('10.0.0.2', '203.0.113.5')).statusCode, 200);
      assert.equal((await via('10.0.0.2', '198.51.100.1, 203.0.113.5, 10.1.1.1')).statusCode, 200);
      assert.equal((await via('fd00::1', '2001:db8::9')).statusCode, 200);
      assertError(await via('10.0.0.2', '203.0.113.5, 198.51.100.1'), 403, 'IP_NOT_ALLOWED');
      assertError(await via('10.0.0.2'), 403, 'IP_NOT_ALLOWED');
    });

    it('ignores x-forwarded-for from peers that are not trusted proxies', async () => {
      assertError(await via('198.51.100.9', '203.0.113.5'), 403, 'IP_NOT_ALLOWED');
    });

    it('portal logins see the same client address', async () => {
      const user = await createUser(t, 'acme', 'auditor');
      const loginVia = (forwardedFor: string) =>
        t.app.inject({
          method: 'POST',
          url: '/portal/login',
          remoteAddress: '10.0.0.3',
          headers: { 'x-forwarded-for': forwardedFor },
          payload: { tenantId: 'acme', email: user.email, password: PASSWORD },
        });
      assertError(await loginVia('198.51.100.44'), 403, 'IP_NOT_ALLOWED');
      const res = await loginVia('203.0.113.44');
      assert.equal(res.statusCode, 200, res.body);
    });
  });
}
