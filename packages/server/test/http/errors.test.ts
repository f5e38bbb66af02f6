import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Type } from 'typebox';
import { type App, BODY_LIMIT_BYTES, buildServer } from '../../src/app/build-server.js';
import { loadConfig } from '../../src/config/config.js';
import { VERSION } from '../../src/foundation/version.js';
import { needs, PUBLIC } from '../../src/http/access.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
import { ADMIN_TOKEN, createTestApp, manualClock, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';
import { createTestStorage, ENGINES } from '../helpers/storage.js';

const SECRET_TEXT = 'connection string postgres://admin:hunter2@db/prod';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Test-only routes: a public route that throws, and physical-surface probes. */
function probes(app: App): void {
  app.get('/boom', { config: { access: PUBLIC } }, async () => {
    throw new Error(SECRET_TEXT);
  });
  app.get('/physical/boom', { config: { access: PUBLIC } }, async () => {
    throw new TypeError(SECRET_TEXT);
  });
  app.post(
    '/physical/probe',
    {
      config: needs('physical:classify'),
      schema: {
        body: Type.Object(
          { tenantId: Type.Optional(Type.String()), value: Type.Integer() },
          { additionalProperties: false },
        ),
      },
    },
    async () => ({ ok: true }),
  );
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
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json() as { error: Envelope };
  assert.deepEqual(Object.keys(body), ['error'], res.body);
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

function assertIssues(error: Envelope): Array<{ path: string; message: string }> {
  const issues = error.details?.issues as Array<{ path: string; message: string }>;
  assert.ok(Array.isArray(issues) && issues.length > 0, JSON.stringify(error));
  for (const issue of issues) {
    assert.equal(typeof issue.path, 'string');
    assert.equal(typeof issue.message, 'string');
  }
  return issues;
}

const bearer = (key: string, tenantId: string) => ({
  authorization: `Bearer ${key}`,
  'x-tenant-id': tenantId,
});

for (const engine of ENGINES) {
  describe(`errors, public routes and admin routes (${engine})`, () => {
    let t: TestApp;
    let acme: CreatedTenant;

    const ownerHeaders = () => bearer(acme.ownerKey.key, 'acme');
    const postJson = (url: string, payload: string, headers: Record<string, string> = ownerHeaders()) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload,
      });

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' }, probes);
      acme = await t.createTenant('acme', 'enterprise');
    });
    after(async () => {
      await t.close();
    });

    describe('intent-surface envelope', () => {
      test('404 for an unknown route, with or without /v1', async () => {
        for (const [method, url] of [
          ['GET', '/no-such-route'],
          ['GET', '/v1/no-such-route'],
          ['POST', '/v1/no-such-route'],
          ['GET', '/v1'],
          ['GET', '/v2/health'],
        ] as const) {
          assertError(await t.app.inject({ method, url }), 404, 'NOT_FOUND');
        }
        // A known path with another method is 405 (method-not-allowed.test.ts).
        assertError(await t.app.inject({ method: 'DELETE', url: '/keys' }), 405, 'METHOD_NOT_ALLOWED');
      });

      test('/v1/health answers like /health', async () => {
        for (const url of ['/health', '/v1/health', '/v1/health?probe=1']) {
          const res = await t.app.inject({ method: 'GET', url });
          assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
          const body = res.json();
          assert.deepEqual(Object.keys(body).sort(), ['status', 'uptimeSeconds', 'version']);
          assert.equal(body.status, 'ok');
          assert.equal(body.version, VERSION);
          assert.equal(typeof body.uptimeSeconds, 'number');
          assert.ok(body.uptimeSeconds >= 0);
          assert.equal(typeof res.headers['x-request-id'], 'string');
        }
      });

      test('400 for malformed JSON', async () => {
        for (const payload of ['{"name":', '{name: "x"}', 'nope', '{"a":1}}', '[1,]']) {
          const error = assertError(await postJson('/keys', payload), 400, 'VALIDATION_ERROR');
          assertIssues(error);
          assert.equal(error.message, 'The request body is not valid JSON');
        }
      });

      test('400 for valid JSON with a __proto__ or constructor.prototype key, saying so', async () => {
        for (const payload of ['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']) {
          const error = assertError(await postJson('/keys', payload), 400, 'VALIDATION_ERROR');
          assertIssues(error);
          assert.match(error.message, /__proto__ or constructor\.prototype key/, payload);
        }
      });

      test('413 for a body over 1 MiB; exactly 1 MiB is read', async () => {
        const skeleton = JSON.stringify({ name: '', role: 'agent' });
        const exact = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES - skeleton.length), role: 'agent' });
        assert.equal(Buffer.byteLength(exact), BODY_LIMIT_BYTES);
        // Exactly the limit reaches validation (the name is too long).
        assertError(await postJson('/keys', exact), 400, 'VALIDATION_ERROR');
        const over = JSON.stringify({
          name: 'x'.repeat(BODY_LIMIT_BYTES - skeleton.length + 1),
          role: 'agent',
        });
        assertError(await postJson('/keys', over), 413, 'PAYLOAD_TOO_LARGE');
        const multiByte = JSON.stringify({ name: 'é'.repeat(BODY_LIMIT_BYTES / 2 + 8), role: 'agent' });
        assertError(await postJson('/keys', multiByte), 413, 'PAYLOAD_TOO_LARGE');
      });

      test('415 for a body that is not application/json', async () => {
        const body = JSON.stringify({ name: 'x', role: 'agent' });
        for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
          const res = await t.app.inject({
            method: 'POST',
            url: '/keys',
            headers: { ...ownerHeaders(), 'content-type': contentType },
            payload: body,
          });
          assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
        }
        // A body without any content-type.
        const bare = await t.app.inject({
          method: 'POST',
          url: '/keys',
          headers: ownerHeaders(),
          payload: body,
        });
        assertError(bare, 415, 'UNSUPPORTED_MEDIA_TYPE');
      });

      test('an empty JSON body reaches schema validation: 400 with details.issues', async () => {
        for (const payload of ['', '   ']) {
          const error = assertError(await postJson('/keys', payload), 400, 'VALIDATION_ERROR');
          assertIssues(error);
        }
        const noBody = await t.app.inject({ method: 'POST', url: '/keys', headers: ownerHeaders() });
        assertIssues(assertError(noBody, 400, 'VALIDATION_ERROR'));
        const missingRole = assertError(await postJson('/keys', '{"name":"x"}'), 400, 'VALIDATION_ERROR');
        assert.ok(
          assertIssues(missingRole).some((issue) => issue.path === '/role'),
          JSON.stringify(missingRole),
        );
        const unknownField = await postJson('/keys', '{"name":"x","role":"agent","extra":1}');
        assertIssues(assertError(unknownField, 400, 'VALIDATION_ERROR'));
      });

      test('500 answers a generic message that does not leak the error', async () => {
        for (const url of ['/boom', '/v1/boom']) {
          const res = await t.app.inject({ method: 'GET', url });
          const error = assertError(res, 500, 'INTERNAL_ERROR');
          assert.ok(!res.body.includes('hunter2'), res.body);
          assert.ok(!res.body.includes(SECRET_TEXT), res.body);
          assert.ok(!/at .*\.ts:\d+/.test(res.body), 'a stack trace leaked');
          assert.equal(error.details, undefined);
          assert.ok(error.requestId.length > 0);
        }
      });

      test('a malformed percent-encoding in the path answers 400 with the envelope', async () => {
        const res = await t.app.inject({
          method: 'DELETE',
          url: '/keys/%E0%A4%A',
          headers: { ...ownerHeaders(), 'x-request-id': 'bad-url-1' },
        });
        assert.equal(res.headers['x-request-id'], 'bad-url-1');
        assertError(res, 400, 'VALIDATION_ERROR');
        const physical = await t.app.inject({ method: 'GET', url: '/v1/physical/%zz' });
        assert.ok([400, 404].includes(physical.statusCode), physical.body);
        assertError(
          physical,
          physical.statusCode,
          physical.statusCode === 400 ? 'validation_error' : 'not_found',
        );
      });
    });

    describe('request ids', () => {
      test("the caller's well-formed x-request-id is echoed in the header and the body", async () => {
        for (const id of ['abc', 'req-1.2_3:4', 'A'.repeat(128), '01J0000000.trace:span-9']) {
          const ok = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': id } });
          assert.equal(ok.headers['x-request-id'], id);
          const error = assertError(
            await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': id } }),
            404,
            'NOT_FOUND',
          );
          assert.equal(error.requestId, id);
          const unauthorized = assertError(
            await t.app.inject({ method: 'GET', url: '/keys', headers: { 'x-request-id': id } }),
            401,
            'UNAUTHORIZED',
          );
          assert.equal(unauthorized.requestId, id);
        }
      });

      test('a malformed x-request-id is replaced by a fresh one', async () => {
        for (const id of ['has space', 'A'.repeat(129), 'slash/inside', 'quote"', 'ümlaut', '']) {
          const res = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': id } });
          const error = assertError(res, 404, 'NOT_FOUND');
          assert.notEqual(error.requestId, id);
          assert.match(error.requestId, UUID);
        }
        // Without a caller id, every response gets its own.
        const first = await t.app.inject({ method: 'GET', url: '/health' });
        const second = await t.app.inject({ method: 'GET', url: '/health' });
        assert.match(String(first.headers['x-request-id']), UUID);
        assert.notEqual(first.headers['x-request-id'], second.headers['x-request-id']);
      });

      test('successful and error responses of tenant routes carry x-request-id', async () => {
        const ok = await t.app.inject({
          method: 'GET',
          url: '/tenant',
          headers: { ...ownerHeaders(), 'x-request-id': 'r-1' },
        });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers['x-request-id'], 'r-1');
        const tooBig = await postJson('/keys', `"${'x'.repeat(BODY_LIMIT_BYTES)}"`, {
          ...ownerHeaders(),
          'x-request-id': 'r-2',
        });
        assert.equal(assertError(tooBig, 413, 'PAYLOAD_TOO_LARGE').requestId, 'r-2');
      });
    });

    describe('physical surface codes', () => {
      const physical = (url: string, headers: Record<string, string>, payload?: string) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', ...headers },
          ...(payload === undefined ? {} : { payload }),
        });
      let agentKey: string;
      let auditorKey: string;

      before(async () => {
        for (const role of ['agent', 'auditor'] as const) {
          const res = await postJson('/keys', JSON.stringify({ name: role, role }));
          assert.equal(res.statusCode, 201, res.body);
          if (role === 'agent') agentKey = res.json().key;
          else auditorKey = res.json().key;
        }
      });

      test('a valid request reaches the route under /physical and /v1/physical', async () => {
        for (const url of ['/physical/probe', '/v1/physical/probe']) {
          const res = await physical(url, bearer(agentKey, 'acme'), '{"value":1}');
          assert.equal(res.statusCode, 200, res.body);
        }
      });

      test('one issue per field at fault: an unknown member is not a known field, each missing one is required', async () => {
        const error = assertError(
          await physical('/v1/physical/probe', bearer(agentKey, 'acme'), '{"valu":1,"extra":true}'),
          400,
          'validation_error',
        );
        assert.deepEqual(error.details?.issues, [
          { path: '/value', message: 'is required' },
          { path: '/valu', message: 'is not a known field' },
          { path: '/extra', message: 'is not a known field' },
        ]);
        assert.equal(error.message, '/value: is required');
        const keys = assertError(
          await postJson('/keys', '{"role":"agent","nme":"x"}'),
          400,
          'VALIDATION_ERROR',
        );
        assert.deepEqual(
          ((keys.details?.issues ?? []) as { path: string; message: string }[]).filter((issue) =>
            ['/name', '/nme'].includes(issue.path),
          ),
          [
            { path: '/name', message: 'is required' },
            { path: '/nme', message: 'is not a known field' },
          ],
        );
      });

      test('unauthenticated with details.reason', async () => {
        for (const url of ['/physical/probe', '/v1/physical/probe']) {
          const missing = assertError(
            await physical(url, { 'x-tenant-id': 'acme' }, '{}'),
            401,
            'unauthenticated',
          );
          assert.equal(missing.details?.reason, 'missing_credential');
          const prefix = assertError(
            await physical(url, bearer('sk_x', 'acme'), '{}'),
            401,
            'unauthenticated',
          );
          assert.equal(prefix.details?.reason, 'invalid_api_key');
          const header = assertError(
            await physical(url, { authorization: `Bearer ${agentKey}` }, '{}'),
            401,
            'unauthenticated',
          );
          assert.equal(header.details?.reason, 'tenant_header_missing');
          const unknown = assertError(
            await physical(url, bearer(`service_live_${'Z'.repeat(43)}`, 'acme'), '{}'),
            401,
            'unauthenticated',
          );
          assert.equal(typeof unknown.details?.reason, 'string');
        }
      });

      test('forbidden with details.permission, tenant_mismatch', async () => {
        const forbidden = assertError(
          await physical('/v1/physical/probe', bearer(auditorKey, 'acme'), '{"value":1}'),
          403,
          'forbidden',
        );
        assert.equal(forbidden.details?.permission, 'physical:classify');
        assertError(
          await physical('/v1/physical/probe', bearer(agentKey, 'globex'), '{"value":1}'),
          403,
          'tenant_mismatch',
        );
        assertError(
          await physical('/v1/physical/probe', bearer(agentKey, 'acme'), '{"tenantId":"globex","value":"x"}'),
          403,
          'tenant_mismatch',
        );
      });

      test('validation_error, unsupported_media_type, payload_too_large', async () => {
        const headers = bearer(agentKey, 'acme');
        assertIssues(
          assertError(
            await physical('/v1/physical/probe', headers, '{"value":"x"}'),
            400,
            'validation_error',
          ),
        );
        assertIssues(
          assertError(await physical('/v1/physical/probe', headers, '{"value":'), 400, 'validation_error'),
        );
        assertIssues(assertError(await physical('/v1/physical/probe', headers, ''), 400, 'validation_error'));
        assertIssues(
          assertError(
            await physical('/v1/physical/probe', bearer(agentKey, 'ACME'), '{}'),
            400,
            'validation_error',
          ),
        );
        assertError(
          await physical('/v1/physical/probe', { ...headers, 'content-type': 'text/plain' }, 'x'),
          415,
          'unsupported_media_type',
        );
        assertError(
          await physical('/v1/physical/probe', headers, `"${'x'.repeat(BODY_LIMIT_BYTES)}"`),
          413,
          'payload_too_large',
        );
      });

      test('not_found for an unknown physical path, internal_error for a failure', async () => {
        for (const url of ['/v1/physical/x', '/physical/x', '/v1/physical', '/v1/physical?x=1']) {
          assertError(await t.app.inject({ method: 'GET', url }), 404, 'not_found');
        }
        // Paths that merely start with the letters stay on the intent surface.
        assertError(await t.app.inject({ method: 'GET', url: '/v1/physicalx' }), 404, 'NOT_FOUND');
        const res = await t.app.inject({ method: 'GET', url: '/v1/physical/boom' });
        assertError(res, 500, 'internal_error');
        assert.ok(!res.body.includes('hunter2'));
      });
    });

    describe('public routes', () => {
      test('/openapi.json is OpenAPI 3.1 and lists /keys', async () => {
        const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
        assert.equal(res.statusCode, 200, res.body);
        const doc = res.json();
        assert.match(doc.openapi, /^3\.1\./);
        // Relative (contract §13.4), so "Try it out" works from the address the banner prints.
        assert.deepEqual(doc.servers, [{ url: '/' }]);
        assert.ok(doc.paths['/keys'], Object.keys(doc.paths).join(', '));
        assert.ok(doc.paths['/keys'].post && doc.paths['/keys'].get);
        assert.ok(doc.paths['/tenant']);
        // Test-only probes declare no hide flag; the docs UI routes are hidden.
        assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/docs')));
        assert.equal((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).statusCode, 200);
      });

      test('/docs answers 200 and may not be framed', async () => {
        let res = await t.app.inject({ method: 'GET', url: '/docs' });
        for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
          const location = String(res.headers.location);
          res = await t.app.inject({
            method: 'GET',
            url: new URL(location, 'http://localhost/docs').pathname,
          });
        }
        assert.equal(res.statusCode, 200, res.body.slice(0, 200));
        assert.match(String(res.headers['content-type']), /text\/html/);
        for (const url of ['/docs', '/docs/static/index.html', '/docs/json']) {
          const page = await t.app.inject({ method: 'GET', url });
          assert.equal(page.headers['x-frame-options'], 'DENY', url);
          assert.equal(page.headers['content-security-policy'], "frame-ancestors 'none'", url);
        }
      });

      test('/metrics is Prometheus text with request counts and no tenant label', async () => {
        await t.app.inject({ method: 'GET', url: '/tenant', headers: ownerHeaders() });
        await t.app.inject({ method: 'GET', url: '/keys', headers: ownerHeaders() });
        const res = await t.app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(res.statusCode, 200, res.body);
        assert.match(String(res.headers['content-type']), /^text\/plain/);
        assert.match(res.body, /^# HELP authority_http_requests_total /m);
        assert.match(res.body, /^authority_http_requests_total\{[^}]*route="\/tenant"[^}]*\} \d+/m);
        assert.ok(!res.body.includes('acme'), 'metrics mention a tenant');
        assert.ok(!/tenant(_?id)?="/i.test(res.body), 'metrics carry a tenant label');
      });

      test('/ready answers 200 with the database check', async () => {
        const res = await t.app.inject({ method: 'GET', url: '/ready' });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { ready: true, checks: { database: 'ok' } });
      });

      test('GET /tenant returns the tenant of the credential', async () => {
        const res = await t.app.inject({ method: 'GET', url: '/tenant', headers: ownerHeaders() });
        assert.equal(res.statusCode, 200, res.body);
        const tenant = res.json();
        assert.deepEqual(Object.keys(tenant).sort(), [
          'createdAt',
          'id',
          'ipAllowlist',
          'killSwitch',
          'name',
          'plan',
          'rateLimitPerMinute',
        ]);
        assert.equal(tenant.id, 'acme');
        assert.equal(tenant.plan, 'enterprise');
        assert.equal(tenant.rateLimitPerMinute, 10_000);
        assert.deepEqual(tenant.killSwitch, {
          enabled: false,
          reason: null,
          changedBy: null,
          changedAt: null,
        });
        assert.deepEqual(tenant.ipAllowlist, []);
        assert.match(tenant.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        const other = await t.createTenant('initech');
        const theirs = await t.app.inject({
          method: 'GET',
          url: '/tenant',
          headers: bearer(other.ownerKey.key, 'initech'),
        });
        assert.equal(theirs.json().id, 'initech');
        assert.equal(theirs.json().plan, 'pro');
        assert.equal(theirs.json().rateLimitPerMinute, null);
      });
    });

    describe('admin routes', () => {
      /** `token: null` sends no x-admin-token header at all. */
      const admin = (
        method: 'POST' | 'PATCH',
        url: string,
        payload: unknown,
        token: string | null = ADMIN_TOKEN,
      ) =>
        t.app.inject({
          method,
          url,
          headers: token === null ? {} : { 'x-admin-token': token },
          payload: payload as object,
        });

      test('POST /admin/tenants creates a tenant and a working owner key', async () => {
        const res = await admin('POST', '/admin/tenants', {
          id: 'umbrella',
          name: 'Umbrella Corp',
          plan: 'business',
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.headers['cache-control'], 'no-store');
        const { tenant, ownerKey } = res.json();
        assert.equal(tenant.id, 'umbrella');
        assert.equal(tenant.name, 'Umbrella Corp');
        assert.equal(tenant.plan, 'business');
        assert.equal(tenant.rateLimitPerMinute, null);
        assert.equal(ownerKey.role, 'owner');
        assert.match(ownerKey.key, /^service_live_[0-9A-Za-z]{43}$/);
        assert.equal(ownerKey.displayPrefix, ownerKey.key.slice(0, 21));
        const me = await t.app.inject({
          method: 'GET',
          url: '/tenant',
          headers: bearer(ownerKey.key, 'umbrella'),
        });
        assert.equal(me.statusCode, 200, me.body);
        assert.equal(me.json().id, 'umbrella');
        const keys = await t.app.inject({
          method: 'GET',
          url: '/keys',
          headers: bearer(ownerKey.key, 'umbrella'),
        });
        assert.equal(keys.statusCode, 200, keys.body);
        // The name defaults to the id; enterprise takes its rate limit.
        const unnamed = await admin('POST', '/v1/admin/tenants', { id: 'massive', plan: 'enterprise' });
        assert.equal(unnamed.statusCode, 400, 'name is part of the body (contract §2)');
        const ent = await admin('POST', '/v1/admin/tenants', {
          id: 'massive',
          name: 'Massive Dynamic',
          plan: 'enterprise',
          rateLimitPerMinute: 5000,
        });
        assert.equal(ent.statusCode, 201, ent.body);
        assert.equal(ent.json().tenant.name, 'Massive Dynamic');
        assert.equal(ent.json().tenant.rateLimitPerMinute, 5000);
      });

      test('a wrong or missing admin token: 401, before the body is looked at', async () => {
        for (const token of [null, '', 'wrong', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1)]) {
          assertError(
            await admin('POST', '/admin/tenants', { id: 'nope-1', plan: 'pro' }, token),
            401,
            'UNAUTHORIZED',
          );
          assertError(await admin('POST', '/admin/tenants', { bogus: true }, token), 401, 'UNAUTHORIZED');
          assertError(
            await admin('PATCH', '/admin/tenants/acme', { plan: 'free' }, token),
            401,
            'UNAUTHORIZED',
          );
        }
        // The token is not an API key either.
        const asBearer = await t.app.inject({
          method: 'POST',
          url: '/admin/tenants',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          payload: { id: 'nope-2', plan: 'pro' },
        });
        assertError(asBearer, 401, 'UNAUTHORIZED');
        const tenants = await t.storage.db
          .selectFrom('tenants')
          .select('id')
          .where('id', 'like', 'nope-%')
          .execute();
        assert.deepEqual(tenants, []);
      });

      test('a duplicate id: 409 CONFLICT', async () => {
        assert.equal(
          (await admin('POST', '/admin/tenants', { id: 'dup-co', name: 'Dup Co', plan: 'pro' })).statusCode,
          201,
        );
        assertError(
          await admin('POST', '/admin/tenants', { id: 'dup-co', name: 'Dup Co', plan: 'free' }),
          409,
          'CONFLICT',
        );
        assertError(
          await admin('POST', '/admin/tenants', { id: 'acme', name: 'Acme', plan: 'pro' }),
          409,
          'CONFLICT',
        );
        const owners = await t.storage.db
          .selectFrom('api_keys')
          .select('id')
          .where('tenant_id', '=', 'dup-co')
          .execute();
        assert.equal(owners.length, 1);
      });

      test('bad tenant requests: 400 VALIDATION_ERROR', async () => {
        for (const body of [
          { id: 'big-co', plan: 'enterprise' },
          { id: 'Bad_Id', plan: 'pro' },
          { id: 'a', plan: 'pro' },
          { id: '-lead', plan: 'pro' },
          { id: 'x'.repeat(64), plan: 'pro' },
          { id: 'good-id', plan: 'platinum' },
          { id: 'good-id', plan: 'pro', rateLimitPerMinute: 100 },
          { id: 'good-id', plan: 'enterprise', rateLimitPerMinute: 0 },
          { id: 'good-id', plan: 'enterprise', rateLimitPerMinute: 1.5 },
          { id: 'good-id', plan: 'pro', name: '   ' },
          { id: 'good-id', plan: 'pro', extra: 1 },
          { id: 'good-id' },
          { plan: 'pro' },
          [],
        ]) {
          const error = assertError(await admin('POST', '/admin/tenants', body), 400, 'VALIDATION_ERROR');
          assertIssues(error);
        }
        const rows = await t.storage.db
          .selectFrom('tenants')
          .select('id')
          .where('id', 'in', ['big-co', 'good-id'])
          .execute();
        assert.deepEqual(rows, []);
      });

      test('a tenant id containing NUL answers 404 like any unknown id (never 500)', async () => {
        assertError(await admin('PATCH', '/admin/tenants/a%00b', { plan: 'pro' }), 404, 'NOT_FOUND');
      });

      test('PATCH /admin/tenants/:id changes the plan; an unknown tenant is 404', async () => {
        assert.equal(
          (await admin('POST', '/admin/tenants', { id: 'patchy', name: 'Patchy', plan: 'free' })).statusCode,
          201,
        );
        const pro = await admin('PATCH', '/admin/tenants/patchy', { plan: 'pro' });
        assert.equal(pro.statusCode, 200, pro.body);
        assert.equal(pro.json().plan, 'pro');
        assert.equal(pro.json().id, 'patchy');
        assertError(
          await admin('PATCH', '/admin/tenants/patchy', { plan: 'enterprise' }),
          400,
          'VALIDATION_ERROR',
        );
        assertError(await admin('PATCH', '/admin/tenants/patchy', { plan: 'gold' }), 400, 'VALIDATION_ERROR');
        const ent = await admin('PATCH', '/admin/tenants/patchy', {
          plan: 'enterprise',
          rateLimitPerMinute: 9000,
        });
        assert.equal(ent.statusCode, 200, ent.body);
        assert.equal(ent.json().rateLimitPerMinute, 9000);
        const limit = await admin('PATCH', '/admin/tenants/patchy', { rateLimitPerMinute: 12000 });
        assert.equal(limit.json().rateLimitPerMinute, 12000);
        const back = await admin('PATCH', '/admin/tenants/patchy', { plan: 'business' });
        assert.equal(back.statusCode, 200, back.body);
        assert.equal(back.json().plan, 'business');
        assert.equal(back.json().rateLimitPerMinute, null);
        const stored = await t.storage.db
          .selectFrom('tenants')
          .selectAll()
          .where('id', '=', 'patchy')
          .executeTakeFirstOrThrow();
        assert.equal(stored.plan, 'business');
        assertError(await admin('PATCH', '/admin/tenants/no-such-tenant', { plan: 'pro' }), 404, 'NOT_FOUND');
        // Any id that names no tenant is 404, whatever its characters.
        for (const id of ['UPPER', '%F0%9F%98%80', 'x'.repeat(100)]) {
          assertError(await admin('PATCH', `/admin/tenants/${id}`, { plan: 'pro' }), 404, 'NOT_FOUND');
        }
      });
    });
  });

  describe(`optional routes and tokens (${engine})`, () => {
    test('with METRICS_TOKEN set, /metrics requires the bearer token', async () => {
      const t = await createTestApp(engine, { METRICS_TOKEN });
      try {
        const none = assertError(await t.app.inject({ method: 'GET', url: '/metrics' }), 401, 'UNAUTHORIZED');
        assert.ok(!JSON.stringify(none).includes(METRICS_TOKEN));
        for (const authorization of [
          `Bearer ${METRICS_TOKEN}x`,
          'Bearer wrong',
          METRICS_TOKEN,
          `Basic ${METRICS_TOKEN}`,
        ]) {
          assertError(
            await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } }),
            401,
            'UNAUTHORIZED',
          );
        }
        const ok = await t.app.inject({
          method: 'GET',
          url: '/v1/metrics',
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        assert.equal(ok.statusCode, 200, ok.body);
        assert.match(ok.body, /authority_http_requests_total/);
        // Other public routes stay open.
        assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
      } finally {
        await t.close();
      }
    });

    test('without AUTHORITY_ADMIN_TOKEN the admin routes do not exist', async () => {
      const testStorage = await createTestStorage(engine);
      const app = await buildServer({
        config: loadConfig({}),
        storage: testStorage.storage,
        clock: manualClock(),
        masterKey: TEST_MASTER_KEY,
      });
      try {
        await app.ready();
        const post = await app.inject({
          method: 'POST',
          url: '/admin/tenants',
          headers: { 'x-admin-token': ADMIN_TOKEN },
          payload: { id: 'sneaky', plan: 'pro' },
        });
        assertError(post, 404, 'NOT_FOUND');
        const patch = await app.inject({
          method: 'PATCH',
          url: '/v1/admin/tenants/sneaky',
          headers: { 'x-admin-token': ADMIN_TOKEN },
          payload: { plan: 'pro' },
        });
        assertError(patch, 404, 'NOT_FOUND');
        assertError(
          await app.inject({ method: 'POST', url: '/admin/tenants', payload: {} }),
          404,
          'NOT_FOUND',
        );
        const rows = await testStorage.storage.db.selectFrom('tenants').select('id').execute();
        assert.deepEqual(rows, []);
        const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
        assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/admin')));
        assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
          'apiKey',
          'bearer',
          'portalSession',
        ]);
      } finally {
        await app.close();
        await testStorage.dispose();
      }
    });
  });
}

for (const engine of ENGINES) {
  describe(`NUL characters in bodies (${engine})`, () => {
    test('an escaped NUL is refused alike on both engines; the literal text \\u0000 is an ordinary string', async () => {
      const t = await createTestApp(engine);
      try {
        const { ownerKey } = await t.createTenant('acme');
        const headers = {
          authorization: `Bearer ${ownerKey.key}`,
          'x-tenant-id': 'acme',
          'content-type': 'application/json',
        };
        const nul = await t.app.inject({
          method: 'POST',
          url: '/keys',
          headers,
          payload: '{"name":"a\\u0000b","role":"agent"}',
        });
        assert.equal(nul.statusCode, 400, nul.body);
        assert.equal(nul.json().error.code, 'VALIDATION_ERROR');
        const text = await t.app.inject({
          method: 'POST',
          url: '/keys',
          headers,
          payload: '{"name":"a\\\\u0000b","role":"agent"}',
        });
        assert.equal(text.statusCode, 201, text.body);
        assert.equal(text.json().name, 'a\\u0000b');
      } finally {
        await t.close();
      }
    });
  });
}
