import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Resolver } from '../../src/egress/egress-client.js';
import type { Access } from '../../src/http/access.js';
import type { RegisteredRoute } from '../../src/http/route-table.js';
import { ROLES } from '../../src/identity/permissions.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { CONTRACT_PRIVILEGED_ROLES, CONTRACT_ROLES, CONTRACT_ROUTE_ACCESS } from './contract.js';
import { portalLogin } from './portal-helpers.js';

/**
 * Role matrix (contract section 2): every role, as an API key and as a portal user, against every
 * route gets exactly the access of the roles table and the route → permission list.
 */

const TENANT = 'matrix';
const resolver: Resolver = async () => ['93.184.216.34'];
const SOME_ID = '01a20000-0000-7000-8000-000000000001';

function accessName(access: Access): string {
  if (access.kind === 'tenant') return access.permission;
  return access.kind;
}

/** A request for the route with its parameters filled in and, for writes, an empty JSON body. */
function requestFor(route: RegisteredRoute, headers: Headers) {
  const url = route.url
    .replace(':tenantId', TENANT)
    .replace(':version', '1')
    .replace(':actorId', 'matrix-actor')
    .replace(':deliveryId', SOME_ID)
    .replace(':escalationId', SOME_ID)
    .replace(':id', SOME_ID);
  const withBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
  return { method: route.method as 'GET', url, headers, ...(withBody ? { payload: {} } : {}) };
}

const errorCode = (res: LightMyRequestResponse): string | undefined => {
  try {
    return (res.json() as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
};

/** The code of an access refusal on the route's surface: `/physical/*` answers lower-snake codes. */
const codeOn = (route: RegisteredRoute, code: string) =>
  route.url.startsWith('/physical/') ? code.toLowerCase() : code;

/** Access was granted when the answer is none of the refusals of the access checks. */
function assertGranted(res: LightMyRequestResponse, context: string): void {
  assert.notEqual(res.statusCode, 401, `${context}: ${res.body}`);
  assert.notEqual(res.statusCode, 429, `${context}: ${res.body}`);
  if (res.statusCode === 403) {
    assert.ok(
      !['FORBIDDEN', 'MFA_REQUIRED', 'TENANT_MISMATCH', 'IP_NOT_ALLOWED'].includes(
        errorCode(res)?.toUpperCase() ?? '',
      ),
      `${context}: ${res.body}`,
    );
  }
}

function assertForbidden(
  res: LightMyRequestResponse,
  route: RegisteredRoute,
  permission: string,
  context: string,
): void {
  assert.equal(res.statusCode, 403, `${context}: ${res.body}`);
  const error = (res.json() as { error: { code: string; details?: { permission?: string } } }).error;
  assert.equal(error.code, codeOn(route, 'FORBIDDEN'), context);
  assert.equal(error.details?.permission, permission, context);
}

/** Logout ends the caller's session, so it runs last for each principal. */
const byLogoutLast = (a: RegisteredRoute, b: RegisteredRoute) =>
  Number(a.url === '/portal/logout') - Number(b.url === '/portal/logout');

for (const engine of ENGINES) {
  describe(`role matrix over every route (${engine})`, () => {
    let t: TestApp;
    let routes: RegisteredRoute[];
    const keys: Record<string, Headers> = {};

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' }, undefined, { resolver });
      routes = t.app.registeredRoutes.filter((route) => !route.url.startsWith('/docs/')).sort(byLogoutLast);
      await t.createTenant(TENANT, 'enterprise');
      for (const role of ROLES) keys[role] = await t.roleHeaders(TENANT, role);
    });
    after(async () => {
      await t.close();
    });

    it('the roles are exactly the contract roles', () => {
      assert.deepEqual([...ROLES].sort(), Object.keys(CONTRACT_ROLES).sort());
    });

    it('every registered route declares the access of the contract route list', () => {
      const wrong = routes
        .filter((route) => CONTRACT_ROUTE_ACCESS[`${route.method} ${route.url}`] !== accessName(route.access))
        .map(
          (route) =>
            `${route.method} ${route.url}: declares ${accessName(route.access)}, contract says ${
              CONTRACT_ROUTE_ACCESS[`${route.method} ${route.url}`] ??
              'nothing (add it to test/access/contract.ts)'
            }`,
        );
      assert.deepEqual(wrong, []);
    });

    it('API keys: each role gets exactly its permissions on every tenant route, 401 on portal and admin routes', async () => {
      for (const role of ROLES) {
        const granted = new Set(CONTRACT_ROLES[role]);
        for (const route of routes) {
          const res = await t.app.inject(requestFor(route, keys[role] ?? {}));
          const context = `${role} key on ${route.method} ${route.url}`;
          const access = route.access;
          if (access.kind === 'portal' || access.kind === 'admin') {
            assert.equal(res.statusCode, 401, `${context}: ${res.body}`);
          } else if (access.kind === 'tenant') {
            if (access.permission === 'any' || granted.has(access.permission)) assertGranted(res, context);
            else assertForbidden(res, route, access.permission, context);
          }
        }
      }
    });

    it('portal users with a verified second factor: the same access as keys of their role', async () => {
      for (const role of ROLES) {
        const session = await portalLogin(t, TENANT, role, { mfa: true });
        const granted = new Set(CONTRACT_ROLES[role]);
        for (const route of routes) {
          const res = await t.app.inject(requestFor(route, session.headers));
          const context = `${role} session on ${route.method} ${route.url}`;
          const access = route.access;
          if (access.kind === 'admin') assert.equal(res.statusCode, 401, context);
          else if (access.kind === 'portal') assertGranted(res, context);
          else if (access.kind === 'tenant') {
            if (access.permission === 'any' || granted.has(access.permission)) assertGranted(res, context);
            else assertForbidden(res, route, access.permission, context);
          }
        }
      }
    });

    it('portal users without a second factor: privileged roles get 403 MFA_REQUIRED on every route but /portal/*', async () => {
      for (const role of ROLES) {
        const session = await portalLogin(t, TENANT, role);
        const privileged = CONTRACT_PRIVILEGED_ROLES.includes(role);
        const granted = new Set(CONTRACT_ROLES[role]);
        for (const route of routes) {
          if (route.access.kind !== 'tenant' && route.access.kind !== 'portal') continue;
          const res = await t.app.inject(requestFor(route, session.headers));
          const context = `${role} session without MFA on ${route.method} ${route.url}`;
          const access = route.access;
          if (access.kind === 'portal') {
            assertGranted(res, context);
          } else if (privileged) {
            assert.equal(res.statusCode, 403, `${context}: ${res.body}`);
            assert.equal(errorCode(res), codeOn(route, 'MFA_REQUIRED'), context);
          } else if (access.permission === 'any' || granted.has(access.permission)) {
            assertGranted(res, context);
          } else {
            assertForbidden(res, route, access.permission, context);
          }
        }
      }
    });
  });
}
