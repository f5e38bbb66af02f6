import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Type } from 'typebox';
import { type App, BODY_LIMIT_BYTES } from '../../src/app/build-server.js';
import { needs } from '../../src/http/access.js';
import { PERMISSIONS, type Permission } from '../../src/identity/permissions.js';
import { apiKeyRepository } from '../../src/tenancy/api-key-repository.js';
import { hashApiKey } from '../../src/tenancy/api-key-secret.js';
import type { IssuedKey } from '../../src/tenancy/key-service.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
// The contract's permissions and role table, copied once from contract section 2 (not imported from
// the code, so a drift between code and contract fails here).
import { CONTRACT_PERMISSIONS, CONTRACT_ROLES } from '../access/contract.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

const KEY_PATTERN = /^service_live_[0-9A-Za-z]{43}$/;
const WELL_FORMED_UNKNOWN_KEY = `service_live_${'A'.repeat(43)}`;

/** Fastify paths treat `:` as a parameter marker, so the probe route of `a:b` is `/perm/a.b`. */
const permPath = (permission: string) => `/perm/${permission.replaceAll(':', '.')}`;

/** Test-only routes: tenant references in body and path, and one route per permission. */
function probes(app: App): void {
  const ProbeBody = Type.Object(
    { tenantId: Type.Optional(Type.String()), value: Type.Integer() },
    { additionalProperties: false },
  );
  app.post(
    '/probe/:tenantId',
    {
      config: needs('any'),
      schema: { params: Type.Object({ tenantId: Type.String() }), body: ProbeBody },
    },
    async () => ({ ok: true }),
  );
  app.post('/probe-body', { config: needs('any'), schema: { body: ProbeBody } }, async () => ({ ok: true }));
  for (const permission of CONTRACT_PERMISSIONS) {
    app.get(permPath(permission), { config: needs(permission as Permission) }, async () => ({ ok: true }));
  }
}

interface Envelope {
  code: string;
  message: string;
  requestId: string;
  details?: Record<string, unknown>;
}

/** Asserts the status and the error envelope of contract section 1, and returns `error`. */
function assertError(res: LightMyRequestResponse, status: number, code: string): Envelope {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  const body = res.json() as { error: Envelope };
  assert.deepEqual(Object.keys(body), ['error']);
  for (const field of Object.keys(body.error)) {
    assert.ok(['code', 'message', 'requestId', 'details'].includes(field), `unexpected field error.${field}`);
  }
  assert.equal(body.error.code, code, res.body);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  assert.equal(typeof res.headers['x-request-id'], 'string');
  assert.equal(body.error.requestId, res.headers['x-request-id']);
  return body.error;
}

const bearer = (key: string, tenantId: string) => ({
  authorization: `Bearer ${key}`,
  'x-tenant-id': tenantId,
});

for (const engine of ENGINES) {
  describe(`authentication and authorization (${engine})`, () => {
    let t: TestApp;
    let acme: CreatedTenant;
    let globex: CreatedTenant;

    const get = (url: string, headers: Record<string, string | string[]> = {}) =>
      t.app.inject({ method: 'GET', url, headers });
    const ownerHeaders = () => bearer(acme.ownerKey.key, 'acme');

    async function createKey(
      body: Record<string, unknown>,
      creatorKey = acme.ownerKey.key,
      tenantId = 'acme',
    ): Promise<IssuedKey> {
      const res = await t.app.inject({
        method: 'POST',
        url: '/keys',
        headers: bearer(creatorKey, tenantId),
        payload: body,
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as IssuedKey;
    }

    function postKey(body: unknown, creatorKey = acme.ownerKey.key) {
      return t.app.inject({
        method: 'POST',
        url: '/keys',
        headers: bearer(creatorKey, 'acme'),
        payload: body as object,
      });
    }

    before(async () => {
      t = await createTestApp(engine, {}, probes);
      acme = await t.createTenant('acme', 'enterprise');
      globex = await t.createTenant('globex', 'enterprise');
    });
    after(async () => {
      await t.close();
    });

    describe('credentials', () => {
      test('no credential: 401 UNAUTHORIZED with reason missing_credential', async () => {
        const error = assertError(await get('/tenant', { 'x-tenant-id': 'acme' }), 401, 'UNAUTHORIZED');
        assert.equal(error.details?.reason, 'missing_credential');
        const empty = assertError(
          await get('/tenant', { 'x-tenant-id': 'acme', 'x-api-key': '' }),
          401,
          'UNAUTHORIZED',
        );
        assert.equal(empty.details?.reason, 'missing_credential');
      });

      test('a key with an unknown prefix: 401 INVALID_API_KEY, through either header', async () => {
        for (const key of [
          `sk_live_${'a'.repeat(43)}`,
          `service_test_${'a'.repeat(43)}`,
          `Service_live_${'a'.repeat(43)}`,
          'abc',
        ]) {
          assertError(await get('/tenant', bearer(key, 'acme')), 401, 'INVALID_API_KEY');
          assertError(
            await get('/tenant', { 'x-api-key': key, 'x-tenant-id': 'acme' }),
            401,
            'INVALID_API_KEY',
          );
        }
      });

      test('an unknown prefix says what a key looks like, and names the usual mistakes, never the credential', async () => {
        const key = `service_live_${'a'.repeat(43)}`;
        const cases: Array<[Record<string, string>, string]> = [
          [{ 'x-api-key': `Bearer ${key}` }, 'x-api-key takes the key alone, without "Bearer "'],
          [{ authorization: `Bearer ps_${'b'.repeat(43)}` }, 'send it as x-portal-session-id'],
          [{ 'x-api-key': `sk_live_${'c'.repeat(43)}` }, 'an API key starts with service_live_'],
        ];
        for (const [headers, hint] of cases) {
          const error = assertError(
            await get('/tenant', { ...headers, 'x-tenant-id': 'acme' }),
            401,
            'INVALID_API_KEY',
          );
          assert.ok(error.message.startsWith('Unrecognized API key prefix: '), error.message);
          assert.ok(error.message.includes(hint), error.message);
          assert.ok(!/aaaa|bbbb|cccc/.test(error.message), 'the credential is never echoed');
        }
      });

      test('an unknown well-formed key: 401 UNAUTHORIZED', async () => {
        const error = assertError(
          await get('/tenant', bearer(WELL_FORMED_UNKNOWN_KEY, 'acme')),
          401,
          'UNAUTHORIZED',
        );
        assert.notEqual(error.details?.reason, 'invalid_api_key');
      });

      test('the legacy svc_ prefix is accepted as a prefix: an unknown svc_ key is UNAUTHORIZED', async () => {
        assertError(await get('/tenant', bearer(`svc_${'b'.repeat(40)}`, 'acme')), 401, 'UNAUTHORIZED');
        assertError(
          await get('/tenant', { 'x-api-key': 'svc_x', 'x-tenant-id': 'acme' }),
          401,
          'UNAUTHORIZED',
        );
      });

      test('a stored legacy svc_ key authenticates', async () => {
        const legacy = `svc_${'L'.repeat(40)}`;
        await apiKeyRepository.insert(t.storage.db, {
          tenantId: 'acme',
          id: 'legacy-key-1',
          name: 'legacy',
          keyHash: hashApiKey(legacy),
          displayPrefix: legacy.slice(0, 21),
          role: 'agent',
          scopes: null,
          expiresAt: null,
          createdAt: t.clock(),
          createdBy: null,
          revokedAt: null,
          lastUsedAt: null,
        });
        const res = await get('/tenant', bearer(legacy, 'acme'));
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().id, 'acme');
      });

      test('Authorization: Bearer, x-api-key and X-API-Key all work', async () => {
        const key = acme.ownerKey.key;
        const variants: Array<Record<string, string>> = [
          { authorization: `Bearer ${key}` },
          { Authorization: `bearer ${key}` },
          { 'x-api-key': key },
          { 'X-API-Key': key },
        ];
        for (const headers of variants) {
          const res = await get('/tenant', { ...headers, 'x-tenant-id': 'acme' });
          assert.equal(res.statusCode, 200, `${JSON.stringify(Object.keys(headers))}: ${res.body}`);
          assert.equal(res.json().id, 'acme');
        }
      });

      test('the same key in both headers is one credential', async () => {
        const key = acme.ownerKey.key;
        const res = await get('/tenant', {
          authorization: `Bearer ${key}`,
          'x-api-key': key,
          'x-tenant-id': 'acme',
        });
        assert.equal(res.statusCode, 200, res.body);
      });

      test('two different credentials: 401 UNAUTHORIZED', async () => {
        const other = await createKey({ name: 'second', role: 'agent' });
        const headers = {
          authorization: `Bearer ${acme.ownerKey.key}`,
          'x-api-key': other.key,
          'x-tenant-id': 'acme',
        };
        assertError(await get('/tenant', headers), 401, 'UNAUTHORIZED');
        // Even when one of them is not a valid key.
        const withBad = {
          authorization: `Bearer ${acme.ownerKey.key}`,
          'x-api-key': WELL_FORMED_UNKNOWN_KEY,
        };
        assertError(await get('/tenant', { ...withBad, 'x-tenant-id': 'acme' }), 401, 'UNAUTHORIZED');
        // An API key and a portal session together.
        const withSession = { ...ownerHeaders(), 'x-portal-session-id': 'some-session' };
        assertError(await get('/tenant', withSession), 401, 'UNAUTHORIZED');
      });

      test('a revoked key: 401 UNAUTHORIZED at once, even when it was just used', async () => {
        const issued = await createKey({ name: 'to-revoke', role: 'agent' });
        assert.equal((await get('/tenant', bearer(issued.key, 'acme'))).statusCode, 200);
        const revoke = await t.app.inject({
          method: 'DELETE',
          url: `/keys/${issued.id}`,
          headers: ownerHeaders(),
        });
        assert.equal(revoke.statusCode, 204, revoke.body);
        assert.equal(revoke.body, '');
        assertError(await get('/tenant', bearer(issued.key, 'acme')), 401, 'UNAUTHORIZED');
        assertError(
          await get('/tenant', { 'x-api-key': issued.key, 'x-tenant-id': 'acme' }),
          401,
          'UNAUTHORIZED',
        );
        const listed = (await get('/keys', ownerHeaders()))
          .json()
          .keys.find((k: { id: string }) => k.id === issued.id);
        assert.equal(listed.revokedAt, new Date(t.clock()).toISOString());
        // Revoking again changes nothing.
        const again = await t.app.inject({
          method: 'DELETE',
          url: `/keys/${issued.id}`,
          headers: ownerHeaders(),
        });
        assert.equal(again.statusCode, 204, again.body);
        assertError(await get('/tenant', bearer(issued.key, 'acme')), 401, 'UNAUTHORIZED');
      });

      test('an expired key: 401 UNAUTHORIZED once the clock passes expiresAt', async () => {
        const expiresAt = new Date(t.clock() + 60_000).toISOString();
        const issued = await createKey({ name: 'short-lived', role: 'agent', expiresAt });
        assert.equal(issued.expiresAt, expiresAt);
        assert.equal((await get('/tenant', bearer(issued.key, 'acme'))).statusCode, 200);
        t.clock.advance(59_000);
        assert.equal((await get('/tenant', bearer(issued.key, 'acme'))).statusCode, 200);
        // Past expiry and past the 5 s look-up cache.
        t.clock.advance(7_000);
        assertError(await get('/tenant', bearer(issued.key, 'acme')), 401, 'UNAUTHORIZED');
        // The owner key (no expiry) still works.
        assert.equal((await get('/tenant', ownerHeaders())).statusCode, 200);
      });

      test('expiresAt in the past or now is refused at creation', async () => {
        for (const expiresAt of [new Date(t.clock() - 1).toISOString(), new Date(t.clock()).toISOString()]) {
          const error = assertError(
            await postKey({ name: 'x', role: 'agent', expiresAt }),
            400,
            'VALIDATION_ERROR',
          );
          assert.ok(Array.isArray(error.details?.issues));
        }
      });
    });

    describe('tenant header', () => {
      test('missing x-tenant-id: 401 with reason tenant_header_missing', async () => {
        const error = assertError(
          await get('/tenant', { authorization: `Bearer ${acme.ownerKey.key}` }),
          401,
          'UNAUTHORIZED',
        );
        assert.equal(error.details?.reason, 'tenant_header_missing');
      });

      test('malformed x-tenant-id: 400 VALIDATION_ERROR', async () => {
        for (const tenantId of ['ACME', 'a', '-acme', 'acme_corp', 'acme corp', 'a'.repeat(64), '']) {
          const error = assertError(
            await get('/tenant', bearer(acme.ownerKey.key, tenantId)),
            400,
            'VALIDATION_ERROR',
          );
          assert.ok(Array.isArray(error.details?.issues), `${tenantId}: ${JSON.stringify(error)}`);
        }
      });

      test('another tenant in the header: 403 TENANT_MISMATCH', async () => {
        assertError(await get('/tenant', bearer(acme.ownerKey.key, 'globex')), 403, 'TENANT_MISMATCH');
        assertError(
          await get('/tenant', bearer(acme.ownerKey.key, 'no-such-tenant')),
          403,
          'TENANT_MISMATCH',
        );
        assertError(await get('/keys', bearer(globex.ownerKey.key, 'acme')), 403, 'TENANT_MISMATCH');
      });

      test('body tenantId of another tenant: 403 TENANT_MISMATCH; the own tenant passes', async () => {
        const post = (payload: unknown) =>
          t.app.inject({
            method: 'POST',
            url: '/probe-body',
            headers: ownerHeaders(),
            payload: payload as object,
          });
        assertError(await post({ tenantId: 'globex', value: 1 }), 403, 'TENANT_MISMATCH');
        const ok = await post({ tenantId: 'acme', value: 1 });
        assert.equal(ok.statusCode, 200, ok.body);
        assert.equal((await post({ value: 1 })).statusCode, 200);
      });

      test(':tenantId path segment of another tenant: 403 TENANT_MISMATCH; the own tenant passes', async () => {
        const post = (tenantId: string, payload: unknown) =>
          t.app.inject({
            method: 'POST',
            url: `/probe/${tenantId}`,
            headers: ownerHeaders(),
            payload: payload as object,
          });
        assertError(await post('globex', { value: 1 }), 403, 'TENANT_MISMATCH');
        assertError(await post('globex', { tenantId: 'acme', value: 1 }), 403, 'TENANT_MISMATCH');
        assertError(await post('acme', { tenantId: 'globex', value: 1 }), 403, 'TENANT_MISMATCH');
        const ok = await post('acme', { tenantId: 'acme', value: 1 });
        assert.equal(ok.statusCode, 200, ok.body);
        // Also reached through the /v1 prefix.
        const v1 = await t.app.inject({
          method: 'POST',
          url: '/v1/probe/globex',
          headers: ownerHeaders(),
          payload: { value: 1 },
        });
        assertError(v1, 403, 'TENANT_MISMATCH');
      });

      test('tenant references are checked after JSON parsing and before schema validation', async () => {
        const json = { ...ownerHeaders(), 'content-type': 'application/json' };
        // Mismatch plus an otherwise invalid body: the mismatch wins.
        const invalidBody = { tenantId: 'globex', value: 'not an integer', extra: true };
        assertError(
          await t.app.inject({
            method: 'POST',
            url: '/probe-body',
            headers: ownerHeaders(),
            payload: invalidBody,
          }),
          403,
          'TENANT_MISMATCH',
        );
        assertError(
          await t.app.inject({
            method: 'POST',
            url: '/probe/globex',
            headers: ownerHeaders(),
            payload: { nope: 1 },
          }),
          403,
          'TENANT_MISMATCH',
        );
        // A body that is not JSON cannot name a tenant: malformed JSON (400) comes first.
        const malformed = '{"tenantId":"globex","value":';
        assertError(
          await t.app.inject({ method: 'POST', url: '/probe-body', headers: json, payload: malformed }),
          400,
          'VALIDATION_ERROR',
        );
        assertError(
          await t.app.inject({ method: 'POST', url: '/probe/globex', headers: json, payload: malformed }),
          400,
          'VALIDATION_ERROR',
        );
        // Without a mismatch, schema validation answers.
        const invalid = assertError(
          await t.app.inject({
            method: 'POST',
            url: '/probe-body',
            headers: ownerHeaders(),
            payload: { value: 'x' },
          }),
          400,
          'VALIDATION_ERROR',
        );
        assert.ok(Array.isArray(invalid.details?.issues));
      });
    });

    describe('permissions', () => {
      test('a missing permission: 403 FORBIDDEN naming it', async () => {
        const agent = await createKey({ name: 'agent', role: 'agent' });
        const error = assertError(await get('/keys', bearer(agent.key, 'acme')), 403, 'FORBIDDEN');
        assert.equal(error.details?.permission, 'keys:manage');
        const create = assertError(await postKey({ name: 'x', role: 'edge' }, agent.key), 403, 'FORBIDDEN');
        assert.equal(create.details?.permission, 'keys:manage');
        const revoke = await t.app.inject({
          method: 'DELETE',
          url: `/keys/${agent.id}`,
          headers: bearer(agent.key, 'acme'),
        });
        assert.equal(assertError(revoke, 403, 'FORBIDDEN').details?.permission, 'keys:manage');
      });

      test('the code knows exactly the closed list of permissions of the contract', () => {
        assert.deepEqual([...PERMISSIONS].sort(), [...CONTRACT_PERMISSIONS].sort());
      });

      test('role table: every role holds exactly the permissions of the contract', async () => {
        for (const [role, granted] of Object.entries(CONTRACT_ROLES)) {
          const issued = await createKey({ name: `role-${role}`, role });
          assert.equal(issued.role, role);
          for (const permission of CONTRACT_PERMISSIONS) {
            const res = await get(permPath(permission), bearer(issued.key, 'acme'));
            if (granted.includes(permission)) {
              assert.equal(res.statusCode, 200, `${role} should hold ${permission}: ${res.body}`);
            } else {
              const error = assertError(res, 403, 'FORBIDDEN');
              assert.equal(error.details?.permission, permission, `${role} should lack ${permission}`);
            }
          }
        }
      });

      test('role table: GET /keys for owner and admin only, GET /tenant for every role', async () => {
        for (const role of Object.keys(CONTRACT_ROLES)) {
          const issued = await createKey({ name: `table-${role}`, role });
          const headers = bearer(issued.key, 'acme');
          const keys = await get('/keys', headers);
          if (role === 'owner' || role === 'admin') {
            assert.equal(keys.statusCode, 200, `${role}: ${keys.body}`);
          } else {
            assert.equal(assertError(keys, 403, 'FORBIDDEN').details?.permission, 'keys:manage', role);
          }
          const tenant = await get('/tenant', headers);
          assert.equal(tenant.statusCode, 200, `${role}: ${tenant.body}`);
          assert.equal(tenant.json().id, 'acme');
        }
      });

      test('scoped keys narrow the role to the scopes', async () => {
        const scoped = await createKey({
          name: 'scoped',
          role: 'agent',
          scopes: ['intent:read', 'physical:classify'],
        });
        assert.deepEqual([...(scoped.scopes ?? [])].sort(), ['intent:read', 'physical:classify']);
        for (const permission of CONTRACT_ROLES.agent ?? []) {
          const res = await get(permPath(permission), bearer(scoped.key, 'acme'));
          if (permission === 'intent:read' || permission === 'physical:classify') {
            assert.equal(res.statusCode, 200, `${permission}: ${res.body}`);
          } else {
            assert.equal(assertError(res, 403, 'FORBIDDEN').details?.permission, permission);
          }
        }
        // An admin scoped without keys:manage cannot manage keys.
        const admin = await createKey({ name: 'scoped-admin', role: 'admin', scopes: ['intent:read'] });
        assert.equal(
          assertError(await get('/keys', bearer(admin.key, 'acme')), 403, 'FORBIDDEN').details?.permission,
          'keys:manage',
        );
        // An empty scope list grants nothing.
        const none = await createKey({ name: 'no-scopes', role: 'agent', scopes: [] });
        assertError(await get(permPath('intent:read'), bearer(none.key, 'acme')), 403, 'FORBIDDEN');
        assert.equal((await get('/tenant', bearer(none.key, 'acme'))).statusCode, 200);
      });
    });

    describe('order of checks (contract section 1)', () => {
      const big = () => JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES + 16), role: 'agent' });

      test('unknown route 404 beats a missing credential', async () => {
        assertError(await get('/no-such-route'), 404, 'NOT_FOUND');
        assertError(await get('/v1/no-such-route'), 404, 'NOT_FOUND');
        const post = await t.app.inject({
          method: 'POST',
          url: '/no-such-route',
          headers: { 'content-type': 'text/plain' },
          payload: 'not json',
        });
        assertError(post, 404, 'NOT_FOUND');
        for (const headers of [
          { 'content-type': 'application/json; charset=latin1' },
          { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        ]) {
          const odd = await t.app.inject({
            method: 'POST',
            url: '/no-such-route',
            headers,
            payload: '{"a":1}',
          });
          assertError(odd, 404, 'NOT_FOUND');
        }
        // A known path with another method: 405, also before the credential.
        assertError(await get('/keys/some-id'), 405, 'METHOD_NOT_ALLOWED');
      });

      test('a bad credential beats a missing or malformed tenant header', async () => {
        assertError(await get('/tenant', { authorization: 'Bearer sk_nope' }), 401, 'INVALID_API_KEY');
        const unknown = assertError(
          await get('/tenant', { authorization: `Bearer ${WELL_FORMED_UNKNOWN_KEY}` }),
          401,
          'UNAUTHORIZED',
        );
        assert.notEqual(unknown.details?.reason, 'tenant_header_missing');
        assertError(await get('/tenant', { 'x-tenant-id': 'NOT VALID' }), 401, 'UNAUTHORIZED');
        assertError(await get('/tenant', bearer(WELL_FORMED_UNKNOWN_KEY, 'NOT VALID')), 401, 'UNAUTHORIZED');
      });

      test('tenant header problems beat a missing permission', async () => {
        const agent = await createKey({ name: 'order-agent', role: 'agent' });
        const missing = assertError(
          await get('/keys', { authorization: `Bearer ${agent.key}` }),
          401,
          'UNAUTHORIZED',
        );
        assert.equal(missing.details?.reason, 'tenant_header_missing');
        assertError(await get('/keys', bearer(agent.key, 'Bad_Tenant')), 400, 'VALIDATION_ERROR');
        assertError(await get('/keys', bearer(agent.key, 'globex')), 403, 'TENANT_MISMATCH');
      });

      test('a missing credential beats 415, 413 and malformed JSON', async () => {
        const headers = { 'x-tenant-id': 'acme' };
        for (const [contentType, payload] of [
          ['text/plain', 'hello'],
          ['application/json', big()],
          ['application/json', '{"name":'],
        ] as const) {
          const res = await t.app.inject({
            method: 'POST',
            url: '/keys',
            headers: { ...headers, 'content-type': contentType },
            payload,
          });
          assertError(res, 401, 'UNAUTHORIZED');
        }
      });

      test('a missing permission beats 415, 413, malformed JSON and body tenant mismatch', async () => {
        const agent = await createKey({ name: 'order-agent-2', role: 'agent' });
        const headers = bearer(agent.key, 'acme');
        for (const [contentType, payload] of [
          ['text/plain', 'hello'],
          ['application/json', big()],
          ['application/json', '{"name":'],
          ['application/json', JSON.stringify({ tenantId: 'globex', name: 'x', role: 'agent' })],
        ] as const) {
          const res = await t.app.inject({
            method: 'POST',
            url: '/keys',
            headers: { ...headers, 'content-type': contentType },
            payload,
          });
          const error = assertError(res, 403, 'FORBIDDEN');
          assert.equal(error.details?.permission, 'keys:manage');
        }
      });

      test('415 beats 413, 413 beats malformed JSON, malformed JSON beats schema validation', async () => {
        const inject = (contentType: string, payload: string) =>
          t.app.inject({
            method: 'POST',
            url: '/keys',
            headers: { ...ownerHeaders(), 'content-type': contentType },
            payload,
          });
        assertError(await inject('text/plain', big()), 415, 'UNSUPPORTED_MEDIA_TYPE');
        assertError(
          await inject('application/json', `{${'x'.repeat(BODY_LIMIT_BYTES + 16)}`),
          413,
          'PAYLOAD_TOO_LARGE',
        );
        assertError(await inject('application/json', '{"name": 42,'), 400, 'VALIDATION_ERROR');
      });
    });

    describe('keys', () => {
      test('POST /keys returns the key once, in the contract format', async () => {
        const res = await postKey({ name: 'ci', role: 'agent' });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.headers['cache-control'], 'no-store');
        const issued = res.json() as IssuedKey;
        assert.deepEqual(Object.keys(issued).sort(), [
          'createdAt',
          'displayPrefix',
          'expiresAt',
          'id',
          'key',
          'name',
          'role',
          'scopes',
        ]);
        assert.match(issued.key, KEY_PATTERN);
        assert.equal(issued.displayPrefix, issued.key.slice(0, 21));
        assert.equal(issued.name, 'ci');
        assert.equal(issued.role, 'agent');
        assert.equal(issued.scopes, null);
        assert.equal(issued.expiresAt, null);
        assert.equal(issued.createdAt, new Date(t.clock()).toISOString());
        assert.notEqual(issued.key, acme.ownerKey.key);
        assert.match(acme.ownerKey.key, KEY_PATTERN);
        const tenant = await get('/tenant', bearer(issued.key, 'acme'));
        assert.equal(tenant.statusCode, 200, tenant.body);
      });

      test('GET /keys never returns a key or a hash', async () => {
        const issued = await createKey({ name: 'listed', role: 'auditor', scopes: ['audit:read'] });
        const res = await get('/keys', ownerHeaders());
        assert.equal(res.statusCode, 200, res.body);
        const { keys } = res.json() as { keys: Array<Record<string, unknown>> };
        assert.ok(keys.length >= 2);
        for (const key of keys) {
          assert.deepEqual(Object.keys(key).sort(), [
            'createdAt',
            'displayPrefix',
            'expiresAt',
            'id',
            'lastUsedAt',
            'name',
            'revokedAt',
            'role',
            'scopes',
          ]);
        }
        for (const secret of [issued.key, acme.ownerKey.key]) {
          assert.ok(!res.body.includes(secret), 'a secret appears in GET /keys');
          assert.ok(!res.body.includes(hashApiKey(secret)), 'a key hash appears in GET /keys');
        }
        assert.ok(!/hash/i.test(res.body));
        const listed = keys.find((k) => k.id === issued.id);
        assert.ok(listed);
        assert.equal(listed.displayPrefix, issued.key.slice(0, 21));
        assert.deepEqual(listed.scopes, ['audit:read']);
        assert.equal(listed.revokedAt, null);
        // Only the caller's tenant is listed.
        assert.ok(!keys.some((k) => k.id === globex.ownerKey.id));
      });

      test('scopes must be a subset of the role: 400', async () => {
        const outside = assertError(
          await postKey({ name: 'x', role: 'agent', scopes: ['keys:manage'] }),
          400,
          'VALIDATION_ERROR',
        );
        assert.ok(Array.isArray(outside.details?.issues));
        assertError(
          await postKey({ name: 'x', role: 'edge', scopes: ['intent:create'] }),
          400,
          'VALIDATION_ERROR',
        );
        assertError(
          await postKey({ name: 'x', role: 'agent', scopes: ['no:such:permission'] }),
          400,
          'VALIDATION_ERROR',
        );
        assertError(await postKey({ name: 'x', role: 'superuser' }), 400, 'VALIDATION_ERROR');
      });

      test('only an owner creates owner keys', async () => {
        const admin = await createKey({ name: 'admin', role: 'admin' });
        assertError(await postKey({ name: 'x', role: 'owner' }, admin.key), 403, 'FORBIDDEN');
        assertError(
          await postKey({ name: 'x', role: 'owner', scopes: ['tenant:admin'] }, admin.key),
          403,
          'FORBIDDEN',
        );
        assertError(
          await postKey({ name: 'x', role: 'owner', scopes: ['intent:read'] }, admin.key),
          403,
          'FORBIDDEN',
        );
        const owner = await postKey({ name: 'second-owner', role: 'owner' });
        assert.equal(owner.statusCode, 201, owner.body);
        // Keys an admin may create: its own role and below.
        assert.equal((await postKey({ name: 'x', role: 'admin' }, admin.key)).statusCode, 201);
        assert.equal((await postKey({ name: 'x', role: 'agent' }, admin.key)).statusCode, 201);
      });

      test("a new key's permissions must be a subset of its creator's", async () => {
        const narrow = await createKey({
          name: 'narrow-admin',
          role: 'admin',
          scopes: ['keys:manage', 'intent:read'],
        });
        const refused = assertError(
          await postKey({ name: 'x', role: 'agent' }, narrow.key),
          403,
          'FORBIDDEN',
        );
        const permission = String(refused.details?.permission);
        assert.ok(
          (CONTRACT_ROLES.agent ?? []).includes(permission) && permission !== 'intent:read',
          `details.permission should name a permission the creator lacks, got ${permission}`,
        );
        assertError(await postKey({ name: 'x', role: 'admin' }, narrow.key), 403, 'FORBIDDEN');
        const allowed = await postKey({ name: 'x', role: 'agent', scopes: ['intent:read'] }, narrow.key);
        assert.equal(allowed.statusCode, 201, allowed.body);
        // A policy_admin cannot call /keys at all.
        const policyAdmin = await createKey({ name: 'policy', role: 'policy_admin' });
        const error = assertError(
          await postKey({ name: 'x', role: 'auditor', scopes: ['audit:read'] }, policyAdmin.key),
          403,
          'FORBIDDEN',
        );
        assert.equal(error.details?.permission, 'keys:manage');
      });

      test('a key revokes only keys it could have created: only an owner revokes owner keys', async () => {
        const revoke = (id: string, key?: string) =>
          t.app.inject({
            method: 'DELETE',
            url: `/keys/${id}`,
            headers: key === undefined ? ownerHeaders() : bearer(key, 'acme'),
          });
        const admin = await createKey({ name: 'revoking-admin', role: 'admin' });
        const owner = await createKey({ name: 'revoked-owner', role: 'owner' });
        const refused = assertError(await revoke(owner.id, admin.key), 403, 'FORBIDDEN');
        assert.equal(refused.details?.permission, 'tenant:admin');
        assert.equal(
          (await get('/tenant', bearer(owner.key, 'acme'))).statusCode,
          200,
          'the owner key still works',
        );

        // A scoped admin lacks most of an agent key's permissions: it cannot revoke one.
        const narrow = await createKey({ name: 'narrow-revoker', role: 'admin', scopes: ['keys:manage'] });
        const agent = await createKey({ name: 'revoked-agent', role: 'agent' });
        const missing = assertError(await revoke(agent.id, narrow.key), 403, 'FORBIDDEN');
        assert.ok((CONTRACT_ROLES.agent ?? []).includes(String(missing.details?.permission)));

        // What each may revoke: the admin an agent key, an owner anything, a key itself.
        assert.equal((await revoke(agent.id, admin.key)).statusCode, 204);
        assert.equal((await revoke(narrow.id, narrow.key)).statusCode, 204);
        assert.equal((await revoke(owner.id)).statusCode, 204);
        assert.equal((await get('/tenant', bearer(owner.key, 'acme'))).statusCode, 401);
      });

      test('a key id containing NUL answers 404 like any unknown id (never 500)', async () => {
        const res = await t.app.inject({ method: 'DELETE', url: '/keys/a%00b', headers: ownerHeaders() });
        assertError(res, 404, 'NOT_FOUND');
      });

      test("another tenant's key id on DELETE /keys/:id answers 404 and does not revoke it", async () => {
        const victim = await createKey({ name: 'victim', role: 'agent' }, globex.ownerKey.key, 'globex');
        const res = await t.app.inject({
          method: 'DELETE',
          url: `/keys/${victim.id}`,
          headers: ownerHeaders(),
        });
        const error = assertError(res, 404, 'NOT_FOUND');
        // Answered exactly as a missing id.
        const missing = await t.app.inject({
          method: 'DELETE',
          url: '/keys/01900000-0000-7000-8000-000000000000',
          headers: ownerHeaders(),
        });
        assert.equal(assertError(missing, 404, 'NOT_FOUND').message, error.message);
        for (const id of ['x', '%F0%9F%98%80', 'x'.repeat(100)]) {
          const odd = await t.app.inject({ method: 'DELETE', url: `/keys/${id}`, headers: ownerHeaders() });
          assert.equal(assertError(odd, 404, 'NOT_FOUND').message, error.message, id);
        }
        assert.equal((await get('/tenant', bearer(victim.key, 'globex'))).statusCode, 200);
        const globexOwner = await t.app.inject({
          method: 'DELETE',
          url: `/keys/${globex.ownerKey.id}`,
          headers: ownerHeaders(),
        });
        assertError(globexOwner, 404, 'NOT_FOUND');
        assert.equal((await get('/tenant', bearer(globex.ownerKey.key, 'globex'))).statusCode, 200);
        const list = (await get('/keys', bearer(globex.ownerKey.key, 'globex'))).json() as {
          keys: Array<{ id: string; revokedAt: string | null }>;
        };
        assert.equal(list.keys.find((k) => k.id === victim.id)?.revokedAt, null);
      });
    });
  });
}
