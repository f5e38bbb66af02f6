import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WIRE_ROUTE_LIST, WIRE_ROUTES, type WireRoute } from '@authority-runtime/sdk/wire';
import { portalLogin } from '../access/portal-helpers.js';
import { ADMIN_TOKEN, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { conformanceProblem, type RecordedAnswer } from '../helpers/wire-recorder.js';

/**
 * The service's real answers against the published wire schemas, strictly (no member the schema
 * does not describe). `client-surface.test.ts` covers the successful answers of every tenant and
 * public route through the client; this covers the rest: the operator and console routes, and an
 * error answer of every route (no credential; an unknown id).
 */
const SAMPLE_PARAMS: Readonly<Record<string, string>> = {
  id: 'no-such-id',
  tenantId: 'acme',
  escalationId: 'no-such-escalation',
  version: '999',
  actorId: 'no-such-actor',
  ticketId: 'no-such-ticket',
  jti: 'no-such-jti',
  deliveryId: 'no-such-delivery',
};

const urlOf = (route: WireRoute) =>
  route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => SAMPLE_PARAMS[name] ?? 'x');

describe('answers against the wire schemas', () => {
  let t: TestApp;
  let owner: Headers;
  const answers: RecordedAnswer[] = [];

  async function call(route: WireRoute, headers: Headers, payload?: unknown) {
    const res = await t.app.inject({
      method: route.method,
      url: urlOf(route),
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    answers.push({ route, status: res.statusCode, text: res.body });
    return res;
  }

  before(async () => {
    t = await createTestApp('sqlite');
    owner = await t.ownerHeaders('acme');
  });
  after(async () => {
    await t.close();
  });

  it('operator routes: create, update, unknown tenant, no token', async () => {
    const admin = { 'x-admin-token': ADMIN_TOKEN };
    const created = await call(WIRE_ROUTES.createTenant, admin, {
      id: 'globex',
      name: 'Globex',
      plan: 'free',
    });
    assert.equal(created.statusCode, 201, created.body);
    const updated = await t.app.inject({
      method: 'PATCH',
      url: '/admin/tenants/globex',
      headers: admin,
      payload: { plan: 'pro' },
    });
    answers.push({ route: WIRE_ROUTES.updateTenant, status: updated.statusCode, text: updated.body });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal((await call(WIRE_ROUTES.updateTenant, admin, { plan: 'pro' })).statusCode, 404);
    assert.equal((await call(WIRE_ROUTES.createTenant, {}, { id: 'x', name: 'x' })).statusCode, 401);
  });

  it('console routes: sign in with a second factor, sign out', async () => {
    const session = await portalLogin(t, 'acme', 'owner');
    const enroll = await call(WIRE_ROUTES.portalMfaEnroll, session.headers);
    assert.equal(enroll.statusCode, 200, enroll.body);
    const badCode = await call(WIRE_ROUTES.portalMfa, session.headers, { code: '000000' });
    assert.ok(badCode.statusCode >= 400, badCode.body);
    assert.equal((await call(WIRE_ROUTES.portalLogout, session.headers)).statusCode, 204);
    const refused = await call(
      WIRE_ROUTES.portalLogin,
      {},
      { tenantId: 'acme', email: 'x@y.z', password: 'no' },
    );
    assert.equal(refused.statusCode, 401, refused.body);
  });

  it('every authenticated route without a credential, and reads by id with one', async () => {
    for (const route of WIRE_ROUTE_LIST) {
      if (route.security === 'public') continue;
      const bare = await call(route, route.security === 'tenant' ? { 'x-tenant-id': 'acme' } : {});
      assert.equal(bare.statusCode, 401, `${route.operationId}: ${bare.body}`);
      if (route.security === 'tenant' && route.method === 'GET' && route.path.includes('/:')) {
        // An unknown id (404), or the caller's own tenant (200): either must match the contract.
        await call(route, owner);
      }
    }
  });

  it('got only answers the contract describes', () => {
    const problems = answers.map(conformanceProblem).filter((problem) => problem !== undefined);
    assert.deepEqual(problems, []);
    const seen = new Set(answers.map((answer) => answer.route.operationId));
    const admin = WIRE_ROUTE_LIST.filter((route) => route.tag === 'admin' || route.tag === 'portal');
    assert.deepEqual(
      admin.map((route) => route.operationId).filter((id) => !seen.has(id)),
      [],
    );
  });
});
