import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { PERMISSIONS, ROLES } from '../../src/identity/permissions.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
import { portalLogin } from '../access/portal-helpers.js';
import { ADMIN_TOKEN, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { badBody } from '../helpers/bad-shapes.js';
import { ENGINES } from '../helpers/storage.js';

/**
 * Contract section 12: bad input answers 4xx with the envelope, never 5xx, and has no effect. Here
 * the effect is a key or a tenant row; a 201 is the only answer allowed to add one.
 */

const NUM_RUNS = 200;
// Fixed for reproducible runs; set FC_SEED to explore other inputs.
const SEED = process.env.FC_SEED === undefined ? 20260101 : Number(process.env.FC_SEED);
const PARAMS = { numRuns: NUM_RUNS, seed: SEED };

interface Counts {
  keys: number;
  tenants: number;
}

async function counts(t: TestApp): Promise<Counts> {
  const keys = await t.storage.db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const tenants = await t.storage.db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { keys: Number(keys.n), tenants: Number(tenants.n) };
}

/** A 4xx carries the envelope; anything else but 201 fails. */
function assertAnswer(res: LightMyRequestResponse, input: unknown): void {
  const context = `input ${JSON.stringify(input)?.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  if (res.statusCode === 201) return;
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, context);
  const body = res.json() as { error?: { code?: unknown; message?: unknown; requestId?: unknown } };
  assert.deepEqual(Object.keys(body), ['error'], context);
  assert.equal(typeof body.error?.code, 'string', context);
  assert.equal(typeof body.error?.message, 'string', context);
  assert.equal(body.error?.requestId, res.headers['x-request-id'], context);
}

/**
 * Strings that stress validation: empty, blank, control characters, lone surrogates, too long. NUL
 * is left to its own test below, so that a failure there does not hide what the properties find.
 */
const awkwardText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).filter((text) => !text.includes('\u0000')),
  fc.constantFrom(
    '',
    ' ',
    '\t',
    'ok',
    '\u0001',
    '\ud800',
    '\udfff',
    'x'.repeat(201),
    'ü'.repeat(150),
    '😀'.repeat(120),
  ),
);
const anyJson = fc.jsonValue({ maxDepth: 2 });
const isoDate = fc
  .date({
    min: new Date('2020-01-01T00:00:00.000Z'),
    max: new Date('2035-01-01T00:00:00.000Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

/** Mostly `valid`, sometimes an awkward string or any JSON value. */
function mostly<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 2, arbitrary: awkwardText },
    { weight: 1, arbitrary: anyJson },
  );
}

/** Usually nothing; sometimes a body tenantId or unknown fields. */
const extraFields = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ tenantId: fc.oneof(fc.constantFrom('acme', 'globex'), awkwardText) }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 2 }) },
);

const nearValidKeyBody = fc
  .tuple(
    fc.record(
      {
        name: fc.oneof(
          { weight: 1, arbitrary: fc.constant('ci') },
          { weight: 3, arbitrary: awkwardText },
          anyJson,
        ),
        role: mostly(fc.constantFrom(...ROLES)),
        scopes: mostly(fc.array(fc.oneof(fc.constantFrom(...PERMISSIONS), awkwardText), { maxLength: 4 })),
        expiresAt: mostly(
          fc.oneof(
            isoDate,
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          ),
        ),
      },
      { requiredKeys: ['name', 'role'] },
    ),
    extraFields,
  )
  .map(([body, extra]) => ({ ...body, ...extra }));

const nearValidTenantBody = fc
  .tuple(
    fc.record(
      {
        id: mostly(fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,62}$/)),
        name: fc.oneof(awkwardText, anyJson),
        plan: mostly(fc.constantFrom('free', 'pro', 'business', 'enterprise')),
        rateLimitPerMinute: fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: -10, max: 2_000_000 }) },
          { weight: 1, arbitrary: fc.double() },
          { weight: 1, arbitrary: anyJson },
        ),
      },
      { requiredKeys: ['id', 'plan'] },
    ),
    extraFields,
  )
  .map(([body, extra]) => ({ ...body, ...extra }));

/** Header values that HTTP can carry: visible ASCII and spaces. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

for (const engine of ENGINES) {
  describe(`bad input never answers 5xx (${engine})`, () => {
    let t: TestApp;
    let acme: CreatedTenant;

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' });
      acme = await t.createTenant('acme', 'enterprise');
      await t.createTenant('globex', 'enterprise');
    });
    after(async () => {
      await t.close();
    });

    async function postKeys(payload: string): Promise<LightMyRequestResponse> {
      return t.app.inject({
        method: 'POST',
        url: '/keys',
        headers: {
          authorization: `Bearer ${acme.ownerKey.key}`,
          'x-tenant-id': 'acme',
          'content-type': 'application/json',
        },
        payload,
      });
    }

    async function postTenants(payload: string): Promise<LightMyRequestResponse> {
      return t.app.inject({
        method: 'POST',
        url: '/admin/tenants',
        headers: { 'x-admin-token': ADMIN_TOKEN, 'content-type': 'application/json' },
        payload,
      });
    }

    async function checkKeyCreation(input: unknown, payload: string): Promise<void> {
      const before = await counts(t);
      const res = await postKeys(payload);
      assertAnswer(res, input);
      const after = await counts(t);
      assert.equal(after.tenants, before.tenants);
      assert.equal(
        after.keys - before.keys,
        res.statusCode === 201 ? 1 : 0,
        `${payload.slice(0, 200)} -> ${res.statusCode}`,
      );
      if (res.statusCode === 201) assert.match(res.json().key, /^service_live_[0-9A-Za-z]{43}$/);
    }

    async function checkTenantCreation(input: unknown, payload: string): Promise<void> {
      const before = await counts(t);
      const res = await postTenants(payload);
      assertAnswer(res, input);
      const after = await counts(t);
      const created = res.statusCode === 201 ? 1 : 0;
      assert.equal(after.tenants - before.tenants, created, `${payload.slice(0, 200)} -> ${res.statusCode}`);
      assert.equal(after.keys - before.keys, created, `${payload.slice(0, 200)} -> ${res.statusCode}`);
    }

    test('POST /keys with any JSON value', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), (value) => checkKeyCreation(value, JSON.stringify(value))),
        PARAMS,
      );
    });

    test('POST /admin/tenants with any JSON value', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), (value) => checkTenantCreation(value, JSON.stringify(value))),
        PARAMS,
      );
    });

    test('POST /keys with near-valid bodies (awkward strings, wrong types, extra fields)', async () => {
      await fc.assert(
        fc.asyncProperty(nearValidKeyBody, (body) => checkKeyCreation(body, JSON.stringify(body))),
        { ...PARAMS, examples: [[{ name: '\ud800', role: 'agent' }], [{ name: ' ', role: 'agent' }]] },
      );
    });

    test('POST /admin/tenants with near-valid bodies (awkward strings, wrong types, extra fields)', async () => {
      await fc.assert(
        fc.asyncProperty(nearValidTenantBody, (body) => checkTenantCreation(body, JSON.stringify(body))),
        { ...PARAMS, examples: [[{ id: 'big-limit', plan: 'enterprise', rateLimitPerMinute: 1e300 }]] },
      );
    });

    test('NUL characters in stored strings answer 201 or 4xx, never 5xx', async () => {
      for (const body of [
        { name: 'a\u0000b', role: 'agent' },
        { name: '\u0000', role: 'agent' },
        { name: 'ok', role: 'agent\u0000' },
        { name: 'ok', role: 'agent', scopes: ['intent:read\u0000'] },
      ]) {
        await checkKeyCreation(body, JSON.stringify(body));
      }
      for (const body of [
        { id: 'nul-name', name: 'a\u0000b', plan: 'pro' },
        { id: 'nul-plan', plan: 'pro\u0000' },
        { id: 'nul\u0000id', plan: 'pro' },
      ]) {
        await checkTenantCreation(body, JSON.stringify(body));
      }
    });

    test('POST /keys with any text as a JSON body', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), (text) =>
          checkKeyCreation(text, text),
        ),
        {
          ...PARAMS,
          examples: [['{"__proto__":{"x":1}}'], ['{"constructor":{"prototype":{}}}'], ['\ufeff{}'], ['null']],
        },
      );
    });

    /**
     * The main body routes with any JSON value (contract section 12): never 5xx; a 4xx carries the
     * envelope and leaves no decision and no audit entry (failed logins are audited by design). The
     * few bodies a route accepts (thresholds take a partial record, so `{}` is valid) may answer 2xx.
     */
    describe('main body routes with any JSON value', () => {
      let session: Headers;
      before(async () => {
        session = (await portalLogin(t, 'acme', 'owner')).headers;
      });

      const owner = () => ({ authorization: `Bearer ${acme.ownerKey.key}`, 'x-tenant-id': 'acme' });
      const ROUTES: Array<{
        method: 'POST' | 'PUT';
        url: string;
        headers: () => Headers;
        acceptsSome?: true;
      }> = [
        { method: 'POST', url: '/intent', headers: owner },
        { method: 'POST', url: '/authority/evaluate', headers: owner },
        { method: 'POST', url: '/authority/tokens/consume', headers: owner },
        { method: 'POST', url: '/authority/permission-tokens/verify', headers: owner },
        { method: 'POST', url: '/authority/approval', headers: owner },
        { method: 'PUT', url: '/authority/thresholds/acme', headers: owner, acceptsSome: true },
        { method: 'POST', url: '/authority/policy', headers: owner },
        { method: 'POST', url: '/policy-packs/install', headers: owner },
        { method: 'PUT', url: '/authority/kill-switch/acme', headers: owner },
        { method: 'PUT', url: '/authority/floor/acme', headers: owner },
        { method: 'PUT', url: '/authority/actors/robot-1', headers: owner },
        { method: 'POST', url: '/audit/acknowledge-break', headers: owner },
        { method: 'PUT', url: '/tenant/ip-allowlist', headers: owner },
        { method: 'POST', url: '/portal/login', headers: () => ({}) },
        { method: 'POST', url: '/portal/mfa', headers: () => session },
      ];

      async function sideEffects(): Promise<{ intents: number; audit: number }> {
        const intents = await t.storage.db
          .selectFrom('intents')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const audit = await t.storage.db
          .selectFrom('audit_entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('event_type', '!=', 'portal.login.failed')
          .executeTakeFirstOrThrow();
        return { intents: Number(intents.n), audit: Number(audit.n) };
      }

      let address = 0;
      for (const route of ROUTES) {
        test(`${route.method} ${route.url}`, async () => {
          await fc.assert(
            fc.asyncProperty(fc.jsonValue(), async (value) => {
              const payload = JSON.stringify(value);
              const before = await sideEffects();
              address += 1;
              const res = await t.app.inject({
                method: route.method,
                url: route.url,
                headers: { ...route.headers(), 'content-type': 'application/json' },
                // A fresh address per attempt keeps the login limit (10 a minute) out of the way.
                remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
                payload,
              });
              const context = `${payload.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
              assert.ok(res.statusCode < 500, context);
              if (res.statusCode < 400) {
                assert.ok(route.acceptsSome, context);
                return;
              }
              assertAnswer(res, value);
              assert.deepEqual(await sideEffects(), before, context);
            }),
            { ...PARAMS, numRuns: 100 },
          );
        });

        test(`${route.method} ${route.url}: ill-formed Unicode (keys too) or nesting past the limit anywhere is 400 naming the path`, async () => {
          await fc.assert(
            fc.asyncProperty(badBody, async (bad) => {
              const before = await sideEffects();
              address += 1;
              const res = await t.app.inject({
                method: route.method,
                url: route.url,
                headers: { ...route.headers(), 'content-type': 'application/json' },
                remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
                payload: JSON.stringify(bad.value),
              });
              const context = `${bad.kind} at ${bad.path} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
              assert.equal(res.statusCode, 400, context);
              assertAnswer(res, bad.path);
              assert.equal(res.json().error.code, 'VALIDATION_ERROR', context);
              assert.equal(res.json().error.details.issues[0].path, bad.path, context);
              assert.deepEqual(await sideEffects(), before, context);
            }),
            { ...PARAMS, numRuns: 40 },
          );
        });
      }
    });

    test('integers beyond the 32-bit range of stored indexes and versions answer 400, never 500', async () => {
      const headers = { authorization: `Bearer ${acme.ownerKey.key}`, 'x-tenant-id': 'acme' };
      const big = 10_000_000_000;
      for (const [method, url, payload] of [
        ['GET', `/audit/acme/export?toIndex=${big}`, undefined],
        ['GET', `/audit/acme/export?fromIndex=${big}`, undefined],
        ['GET', `/audit/acme/checkpoints?to=${big}`, undefined],
        ['POST', '/audit/verify-chain', { to: big }],
        ['POST', '/audit/acknowledge-break', { brokenAt: big, note: 'x' }],
        ['POST', `/authority/policy/versions/${big}/activate`, undefined],
      ] as const) {
        const res = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
        assertAnswer(res, url);
      }
      // Without an upper bound the export reads the whole chain (PostgreSQL once answered 500 here).
      const whole = await t.app.inject({ method: 'GET', url: '/audit/acme/export', headers });
      assert.equal(whole.statusCode, 200, whole.body);
    });

    test('any x-api-key and x-tenant-id headers: 4xx with the envelope', async () => {
      await fc.assert(
        fc.asyncProperty(headerText, headerText, async (key, tenantId) => {
          const res = await t.app.inject({
            method: 'GET',
            url: '/tenant',
            headers: { 'x-api-key': key, 'x-tenant-id': tenantId },
          });
          assert.ok(
            [400, 401, 403].includes(res.statusCode),
            `${key} / ${tenantId} -> ${res.statusCode} ${res.body}`,
          );
          assertAnswer(res, { key, tenantId });
        }),
        {
          ...PARAMS,
          examples: [
            [`service_live_${'A'.repeat(43)}`, 'acme'],
            ['svc_', 'acme'],
            [acme.ownerKey.key, 'globex'],
          ],
        },
      );
    });
  });
}
