import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { portalUserRepository } from '../../src/portal/portal-user-repository.js';
import { hotp, totpCode, totpStep } from '../../src/portal/totp.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { chainEvents } from '../helpers/audit.js';
import { ENGINES } from '../helpers/storage.js';
import { base32Decode, createUser, login, PASSWORD, portalLogin } from './portal-helpers.js';

const MINUTE = 60_000;

function assertError(res: LightMyRequestResponse, status: number, code: string, reason?: string): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as { error: { code: string; requestId: string; details?: { reason?: string } } };
  assert.equal(body.error.code, code, res.body);
  assert.equal(body.error.requestId, res.headers['x-request-id']);
  if (reason !== undefined) assert.equal(body.error.details?.reason, reason, res.body);
}

for (const engine of ENGINES) {
  describe(`portal sessions (${engine})`, () => {
    let t: TestApp;

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' });
      await t.createTenant('acme', 'enterprise');
      await t.createTenant('globex', 'enterprise');
    });
    after(async () => {
      await t.close();
    });

    const get = (url: string, headers: Headers) => t.app.inject({ method: 'GET', url, headers });
    const post = (url: string, headers: Headers, payload?: object) =>
      t.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });

    it('signs a user in; the session id is a credential for the API', async () => {
      const user = await createUser(t, 'acme', 'auditor', 'Auditor@Acme.test');
      assert.equal(user.email, 'auditor@acme.test', 'emails are stored lower-cased');
      const res = await login(t, 'acme', 'AUDITOR@acme.test');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = res.json();
      assert.match(body.sessionId, /^ps_[A-Za-z0-9_-]{43}$/);
      assert.equal(body.mfaRequired, false, 'auditor is not a privileged role');
      assert.equal(body.mfaEnrolled, false);
      assert.deepEqual(body.user, { id: user.id, email: 'auditor@acme.test', role: 'auditor' });
      assert.equal(body.expiresAt, new Date(t.clock() + 12 * 60 * MINUTE).toISOString());

      const headers = { 'x-portal-session-id': body.sessionId, 'x-tenant-id': 'acme' };
      const tenant = await get('/v1/tenant', headers);
      assert.equal(tenant.statusCode, 200, tenant.body);
      assert.equal(tenant.json().id, 'acme');
      // The role's permissions apply: an auditor reads the audit log but does not manage keys.
      assert.equal((await get('/audit/acme/timeline', headers)).statusCode, 200);
      const forbidden = await get('/keys', headers);
      assertError(forbidden, 403, 'FORBIDDEN');
      assert.equal(forbidden.json().error.details.permission, 'keys:manage');
      assertError(await get('/tenant', { ...headers, 'x-tenant-id': 'globex' }), 403, 'TENANT_MISMATCH');

      const [succeeded] = (await chainEvents(t, 'acme', 'portal.login.succeeded')).slice(-1);
      assert.equal(succeeded?.actorId, user.id);
      assert.equal(succeeded?.actorType, 'principal:user');
      assert.equal(succeeded?.payload.email, 'auditor@acme.test');
    });

    it('a failed login answers 401 alike for every cause and is audited as portal.login.failed', async () => {
      const user = await createUser(t, 'acme', 'approver', 'approver@acme.test');
      const before = (await chainEvents(t, 'acme', 'portal.login.failed')).length;
      const wrong = await login(t, 'acme', user.email, 'not the password at all');
      const unknownUser = await login(t, 'acme', 'nobody@acme.test');
      const unknownTenant = await login(t, 'no-such-tenant', user.email);
      for (const res of [wrong, unknownUser, unknownTenant]) {
        assertError(res, 401, 'UNAUTHORIZED', 'invalid_login');
        assert.equal(res.json().error.message, wrong.json().error.message);
        assert.equal(res.headers['x-portal-session-id'], undefined);
      }
      const failed = (await chainEvents(t, 'acme', 'portal.login.failed')).slice(before);
      assert.deepEqual(
        failed.map((entry) => [entry.actorId, entry.payload.email, entry.payload.reason]),
        [
          [user.id, 'approver@acme.test', 'wrong_password'],
          ['unknown', 'nobody@acme.test', 'unknown_user'],
        ],
      );
      for (const entry of failed) {
        assert.equal(typeof entry.payload.clientAddress, 'string');
        assert.doesNotMatch(JSON.stringify(entry), /not the password|horse/, 'passwords are never recorded');
      }
      // No session came out of any of it.
      const sessions = await t.storage.db
        .selectFrom('portal_sessions')
        .select('user_id')
        .where('user_id', '=', user.id)
        .execute();
      assert.equal(sessions.length, 0);
    });

    it('privileged roles get 403 MFA_REQUIRED until the session verifies a TOTP code', async () => {
      const user = await createUser(t, 'acme', 'admin', 'admin@acme.test');
      const res = await login(t, 'acme', user.email);
      assert.equal(res.json().mfaRequired, true);
      const headers = { 'x-portal-session-id': res.json().sessionId, 'x-tenant-id': 'acme' };
      assertError(await get('/tenant', headers), 403, 'MFA_REQUIRED');
      assertError(await get('/keys', headers), 403, 'MFA_REQUIRED');
      // Nothing to verify against yet.
      assertError(await post('/portal/mfa', headers, { code: '123456' }), 409, 'CONFLICT');

      const enroll = await post('/portal/mfa/enroll', headers);
      assert.equal(enroll.statusCode, 200, enroll.body);
      assert.equal(enroll.headers['cache-control'], 'no-store');
      const { otpauthUri, secret } = enroll.json() as { otpauthUri: string; secret: string };
      const uri = new URL(otpauthUri);
      assert.equal(uri.protocol, 'otpauth:');
      assert.equal(uri.searchParams.get('secret'), secret);
      assert.match(decodeURIComponent(uri.pathname), /admin@acme\.test/);
      const key = base32Decode(secret);
      assert.equal(key.length, 20);
      // The secret is stored sealed, never as given.
      const row = await t.storage.db
        .selectFrom('portal_users')
        .select(['totp_secret', 'totp_pending_secret'])
        .where('tenant_id', '=', 'acme')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.totp_secret, null);
      assert.ok(row.totp_pending_secret && !row.totp_pending_secret.includes(secret));

      const wrongCode = (totpCode(key, t.clock()) === '000000' ? '111111' : '000000') as string;
      assertError(
        await post('/portal/mfa', headers, { code: wrongCode }),
        401,
        'UNAUTHORIZED',
        'invalid_mfa_code',
      );
      assertError(await post('/portal/mfa', headers, { code: '12345' }), 400, 'VALIDATION_ERROR');
      assertError(await get('/tenant', headers), 403, 'MFA_REQUIRED');

      const verified = await post('/portal/mfa', headers, { code: totpCode(key, t.clock()) });
      assert.equal(verified.statusCode, 200, verified.body);
      const { sessionId: rotated, ...rest } = verified.json();
      assert.deepEqual(rest, { mfaVerified: true, enrolled: true });
      assert.equal(verified.headers['cache-control'], 'no-store');
      // Session fixation: the id known before the second factor has ended; only the new one works.
      assert.match(rotated, /^ps_[A-Za-z0-9_-]{43}$/);
      assert.notEqual(rotated, headers['x-portal-session-id']);
      assertError(await get('/tenant', headers), 401, 'INVALID_PORTAL_SESSION');
      headers['x-portal-session-id'] = rotated;
      assert.equal((await get('/tenant', headers)).statusCode, 200);
      assert.equal((await get('/keys', headers)).statusCode, 200);
      assert.equal((await chainEvents(t, 'acme', 'portal.mfa.enrolled')).at(-1)?.actorId, user.id);

      // The next login must verify the enrolled factor; the same code (same step) is refused.
      const again = await login(t, 'acme', user.email);
      assert.equal(again.json().mfaEnrolled, true);
      const second = { 'x-portal-session-id': again.json().sessionId, 'x-tenant-id': 'acme' };
      assertError(await get('/tenant', second), 403, 'MFA_REQUIRED');
      assertError(
        await post('/portal/mfa', second, { code: totpCode(key, t.clock()) }),
        401,
        'UNAUTHORIZED',
        'mfa_code_already_used',
      );
      // Neither is the previous step's code once a later step was accepted.
      const previous = hotp(key, totpStep(t.clock()) - 1);
      if (previous !== totpCode(key, t.clock())) {
        assertError(await post('/portal/mfa', second, { code: previous }), 401, 'UNAUTHORIZED');
      }
      t.clock.advance(30_000);
      const next = await post('/portal/mfa', second, { code: totpCode(key, t.clock()) });
      assert.equal(next.statusCode, 200, next.body);
      const { sessionId: nextSession, ...nextRest } = next.json() as Record<string, unknown>;
      assert.deepEqual(nextRest, { mfaVerified: true, enrolled: false });
      assertError(await get('/tenant', second), 401, 'INVALID_PORTAL_SESSION');
      assert.equal(
        (await get('/tenant', { ...second, 'x-portal-session-id': String(nextSession) })).statusCode,
        200,
      );
    });

    it('replacing an enrolled factor needs a session that verified it', async () => {
      const admin = await portalLogin(t, 'acme', 'owner', { mfa: true });
      const fresh = await login(t, 'acme', admin.email);
      const unverified = { 'x-portal-session-id': fresh.json().sessionId, 'x-tenant-id': 'acme' };
      assertError(await post('/portal/mfa/enroll', unverified), 403, 'MFA_REQUIRED');

      t.clock.advance(30_000);
      const reenroll = await post('/portal/mfa/enroll', admin.headers);
      assert.equal(reenroll.statusCode, 200, reenroll.body);
      const newKey = base32Decode(reenroll.json().secret);
      const confirmed = await post('/portal/mfa', admin.headers, { code: totpCode(newKey, t.clock()) });
      const { sessionId: _rotated, ...confirmedRest } = confirmed.json() as Record<string, unknown>;
      assert.deepEqual(confirmedRest, { mfaVerified: true, enrolled: true });
      // From now on the new secret is the factor.
      t.clock.advance(30_000);
      const old = admin.secret ?? Buffer.alloc(0);
      if (totpCode(old, t.clock()) !== totpCode(newKey, t.clock())) {
        assertError(
          await post('/portal/mfa', unverified, { code: totpCode(old, t.clock()) }),
          401,
          'UNAUTHORIZED',
        );
      }
      assert.equal(
        (await post('/portal/mfa', unverified, { code: totpCode(newKey, t.clock()) })).statusCode,
        200,
      );
    });

    it('a user who enrolled a factor must verify it even in a non-privileged role', async () => {
      const agent = await portalLogin(t, 'acme', 'agent', { mfa: true });
      t.clock.advance(30_000);
      const res = await login(t, 'acme', agent.email);
      assert.equal(res.json().mfaRequired, true);
      const headers = { 'x-portal-session-id': res.json().sessionId, 'x-tenant-id': 'acme' };
      assertError(await get('/tenant', headers), 403, 'MFA_REQUIRED');
    });

    it('five wrong codes end the session', async () => {
      const user = await createUser(t, 'acme', 'owner');
      const res = await login(t, 'acme', user.email);
      const headers = { 'x-portal-session-id': res.json().sessionId, 'x-tenant-id': 'acme' };
      const enroll = await post('/portal/mfa/enroll', headers);
      const key = base32Decode(enroll.json().secret);
      const right = totpCode(key, t.clock());
      const wrong = right === '999999' ? '999998' : '999999';
      for (let attempt = 1; attempt <= 4; attempt += 1) {
        assertError(
          await post('/portal/mfa', headers, { code: wrong }),
          401,
          'UNAUTHORIZED',
          'invalid_mfa_code',
        );
      }
      const fifth = await post('/portal/mfa', headers, { code: wrong });
      assertError(fifth, 401, 'UNAUTHORIZED');
      // The answer says the session is gone, so a client goes back to the sign-in form.
      assert.equal(fifth.json().error.details.sessionEnded, true);
      assertError(await post('/portal/mfa', headers, { code: right }), 401, 'INVALID_PORTAL_SESSION');
      const failures = await chainEvents(t, 'acme', 'portal.mfa.failed');
      assert.deepEqual(failures.at(-1)?.payload, { reason: 'invalid_mfa_code', sessionEnded: true });
    });

    it('locks the second factor for 15 minutes after 20 wrong codes in a row over any number of sessions', async () => {
      const user = await createUser(t, 'acme', 'owner');
      const session = async () => {
        const res = await login(t, 'acme', user.email);
        assert.equal(res.statusCode, 200, res.body);
        return { 'x-portal-session-id': res.json().sessionId, 'x-tenant-id': 'acme' };
      };
      const first = await session();
      const key = base32Decode((await post('/portal/mfa/enroll', first)).json().secret);
      const wrongAt = (now: number) => (totpCode(key, now) === '999999' ? '999998' : '999999');
      // Four sessions of five wrong codes: each ends its session, and the twentieth locks the user.
      let headers = first;
      for (let round = 1; round <= 4; round += 1) {
        for (let attempt = 1; attempt <= 5; attempt += 1) {
          assertError(await post('/portal/mfa', headers, { code: wrongAt(t.clock()) }), 401, 'UNAUTHORIZED');
        }
        t.clock.advance(60_000);
        if (round < 4) headers = await session();
      }
      const locked = await chainEvents(t, 'acme', 'portal.mfa.locked');
      assert.equal(locked.length, 1);
      assert.equal(locked[0]?.actorId, user.id);
      assert.equal(locked[0]?.payload.failures, 20);

      // Locked: even the right code is refused, without being judged.
      headers = await session();
      const refused = await post('/portal/mfa', headers, { code: totpCode(key, t.clock()) });
      assertError(refused, 429, 'RATE_LIMITED');
      assert.equal(refused.json().error.details.limit, 'mfa_account');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter > 13 * 60 && retryAfter <= 15 * 60, String(retryAfter));
      assertError(await get('/tenant', headers), 403, 'MFA_REQUIRED');

      // Once the lock has passed, the right code is taken and the count starts again.
      t.clock.advance(retryAfter * 1000);
      headers = await session();
      const accepted = await post('/portal/mfa', headers, { code: totpCode(key, t.clock()) });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const stored = await portalUserRepository.get(t.storage.db, 'acme', user.id);
      assert.deepEqual([stored?.mfaFailures, stored?.mfaLockedUntilMs], [0, null]);
    });

    it('wrong codes sent at once are judged one by one: five, then the session is gone', async () => {
      const user = await createUser(t, 'acme', 'owner');
      const res = await login(t, 'acme', user.email);
      const headers = { 'x-portal-session-id': res.json().sessionId, 'x-tenant-id': 'acme' };
      const enroll = await post('/portal/mfa/enroll', headers);
      const right = totpCode(base32Decode(enroll.json().secret), t.clock());
      const wrong = right === '999999' ? '999998' : '999999';
      const judgedBefore = (await chainEvents(t, 'acme', 'portal.mfa.failed')).length;
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => post('/portal/mfa', headers, { code: wrong })),
      );
      const codes = answers.map((answer) => answer.json().error.code as string);
      assert.deepEqual(
        [
          codes.filter((code) => code === 'UNAUTHORIZED').length,
          codes.filter((code) => code === 'INVALID_PORTAL_SESSION').length,
        ],
        [5, 7],
      );
      const judged = (await chainEvents(t, 'acme', 'portal.mfa.failed')).slice(judgedBefore);
      assert.deepEqual(
        judged.map((event) => event.payload.sessionEnded),
        [false, false, false, false, true],
      );
    });

    it('expires after 30 idle minutes (injected clock)', async () => {
      const session = await portalLogin(t, 'acme', 'auditor');
      t.clock.advance(29 * MINUTE);
      assert.equal((await get('/tenant', session.headers)).statusCode, 200);
      t.clock.advance(29 * MINUTE);
      assert.equal((await get('/tenant', session.headers)).statusCode, 200, 'activity keeps it alive');
      t.clock.advance(30 * MINUTE);
      assertError(await get('/tenant', session.headers), 401, 'INVALID_PORTAL_SESSION', 'idle_timeout');
      assertError(await get('/tenant', session.headers), 401, 'INVALID_PORTAL_SESSION', 'unknown_session');
    });

    it('expires 12 hours after login however active it is', async () => {
      const session = await portalLogin(t, 'acme', 'auditor');
      for (let elapsed = 0; elapsed < 12 * 60 - 20; elapsed += 20) {
        t.clock.advance(20 * MINUTE);
        assert.equal((await get('/tenant', session.headers)).statusCode, 200, `after ${elapsed + 20} min`);
      }
      t.clock.advance(20 * MINUTE);
      assertError(await get('/tenant', session.headers), 401, 'INVALID_PORTAL_SESSION', 'absolute_timeout');
    });

    it('logout ends the session at once', async () => {
      const session = await portalLogin(t, 'acme', 'auditor');
      const out = await post('/portal/logout', session.headers);
      assert.equal(out.statusCode, 204, out.body);
      assertError(await get('/tenant', session.headers), 401, 'INVALID_PORTAL_SESSION');
      assertError(await post('/portal/logout', session.headers), 401, 'INVALID_PORTAL_SESSION');
    });

    it('unknown or malformed session ids, and API keys on portal routes, answer 401', async () => {
      for (const id of ['', 'ps_short', `ps_${'A'.repeat(43)}`, 'service_live_x']) {
        assertError(
          await get('/tenant', { 'x-portal-session-id': id, 'x-tenant-id': 'acme' }),
          401,
          'INVALID_PORTAL_SESSION',
        );
      }
      const owner = await t.ownerHeaders('initech');
      assertError(await post('/portal/logout', owner), 401, 'UNAUTHORIZED', 'portal_session_required');
      assertError(await post('/portal/mfa/enroll', owner), 401, 'UNAUTHORIZED', 'portal_session_required');
      const session = await portalLogin(t, 'acme', 'auditor');
      assertError(
        await get('/tenant', { ...owner, ...session.headers }),
        401,
        'UNAUTHORIZED',
        'conflicting_credentials',
      );
      assertError(
        await get('/tenant', { 'x-portal-session-id': session.sessionId }),
        401,
        'UNAUTHORIZED',
        'tenant_header_missing',
      );
    });

    it('records the portal user as the principal of what it does', async () => {
      const policyAdmin = await portalLogin(t, 'acme', 'policy_admin', { mfa: true });
      const res = await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/robot-7',
        headers: policyAdmin.headers,
        payload: { status: 'blocked', reason: 'maintenance' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().updatedBy, policyAdmin.userId);
      const [entry] = (await chainEvents(t, 'acme', 'actor.changed')).slice(-1);
      assert.equal(entry?.actorId, policyAdmin.userId);
      assert.equal(entry?.actorType, 'principal:user');

      const agent = await portalLogin(t, 'acme', 'agent');
      const intent = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent.headers,
        payload: {
          tenantId: 'acme',
          actor: { id: 'agent-7', type: 'agent' },
          targetSystem: 'acme/payments',
          proposedAction: 'list open pull requests',
          riskContext: { baseRiskScore: 10 },
        },
      });
      assert.ok([200, 202, 403].includes(intent.statusCode), intent.body);
      const row = await t.storage.db
        .selectFrom('intents')
        .select('principal_id')
        .where('tenant_id', '=', 'acme')
        .where('id', '=', intent.json().intentId)
        .executeTakeFirstOrThrow();
      assert.equal(row.principal_id, agent.userId);
    });

    it('login is limited to 10 a minute per address and per account', async () => {
      const user = await createUser(t, 'globex', 'auditor');
      const from = (remoteAddress: string, email = user.email, password = PASSWORD) =>
        t.app.inject({
          method: 'POST',
          url: '/portal/login',
          remoteAddress,
          payload: { tenantId: 'globex', email, password },
        });
      // Per address: ten attempts for ten different accounts, then 429.
      for (let i = 0; i < 10; i += 1) {
        const res = await from('198.51.100.10', `someone${i}@globex.test`);
        assertError(res, 401, 'UNAUTHORIZED');
        assert.equal(res.headers['x-ratelimit-limit'], '10');
        assert.equal(res.headers['x-ratelimit-remaining'], String(9 - i));
      }
      const limited = await from('198.51.100.10');
      assertError(limited, 429, 'RATE_LIMITED');
      assert.equal(limited.headers['retry-after'], '60');
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      // Per account: ten attempts from ten addresses, then 429 even with the right password.
      for (let i = 0; i < 10; i += 1) {
        assert.equal((await from(`198.51.100.${20 + i}`, user.email, 'wrong password!!')).statusCode, 401);
      }
      assertError(await from('198.51.100.40'), 429, 'RATE_LIMITED');
      const failures = await chainEvents(t, 'globex', 'portal.login.failed');
      assert.equal(failures.length, 20, 'refused attempts are not audited; each failed one is');
      // A minute later both budgets are back.
      t.clock.advance(MINUTE);
      assert.equal((await from('198.51.100.10')).statusCode, 200);
    });

    it('a body that fails validation answers 400 and is neither audited nor a session', async () => {
      for (const payload of [{}, { tenantId: 'acme' }, { tenantId: 'ACME', email: 'a@b.c', password: 'x' }]) {
        const res = await t.app.inject({ method: 'POST', url: '/portal/login', payload });
        assertError(res, 400, 'VALIDATION_ERROR');
      }
    });
  });
}
