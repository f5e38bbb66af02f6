import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { isPhysicalSurface } from '../../src/http/error-envelope.js';
import { findBodyProblem, MAX_BODY_DEPTH } from '../../src/request-checks/body-shape.js';
import { portalLogin } from '../access/portal-helpers.js';
import { ADMIN_TOKEN, bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { badBody, nested } from '../helpers/bad-shapes.js';

describe('findBodyProblem', () => {
  test('well-formed text, surrogate pairs and 128 levels pass', () => {
    for (const body of [
      {},
      { a: 'plain', b: ['😀', 'ü', '\ud83d\ude00'], c: { d: null, e: 1.5, f: true } },
      nested(MAX_BODY_DEPTH),
      { '😀': { 'a/b~c': '' } },
    ]) {
      assert.equal(findBodyProblem(body), null, JSON.stringify(body));
    }
  });

  test('names the first lone surrogate, NUL or container past the depth limit', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      ['\ud800', '/', /ill-formed Unicode/],
      [{ a: 'x\udfff' }, '/a', /ill-formed Unicode/],
      [{ a: ['ok', '\udc01devid:q'] }, '/a/1', /ill-formed Unicode/],
      [{ a: 'x\ud800\ud800\udc00' }, '/a', /ill-formed Unicode/],
      [{ a: { '\udc02devid:q': 1 } }, '/a/\ufffddevid:q', /has a key that contains ill-formed Unicode/],
      [{ 'a/b': { '~': 'x\u0000' } }, '/a~1b/~0', /NUL/],
      [nested(MAX_BODY_DEPTH + 1), '/0'.repeat(MAX_BODY_DEPTH), /deeper than 128 levels/],
      [{ events: nested(5_000, 'x') }, `/events${'/0'.repeat(MAX_BODY_DEPTH - 1)}`, /deeper than 128/],
      [{ a: [1, Number.POSITIVE_INFINITY] }, '/a/1', /too large for a double/],
      [{ a: { b: Number.NEGATIVE_INFINITY } }, '/a/b', /too large for a double/],
    ];
    for (const [body, path, message] of cases) {
      const problem = findBodyProblem(body);
      assert.equal(problem?.path, path, String(message));
      assert.match(problem?.message ?? '', message);
    }
  });

  test('finds whatever is planted anywhere in any JSON value, at the path planted', () => {
    fc.assert(
      fc.property(badBody, (bad) => {
        assert.deepEqual(findBodyProblem(bad.value)?.path, bad.path);
      }),
      { numRuns: 1_000 },
    );
  });
});

/**
 * Every route that takes a body, called as its access requires: a lone surrogate in a value or a
 * key, nesting past the limit, or a number past the double range, answers 400 VALIDATION_ERROR (validation_error on the physical
 * surface) naming the path, before the route validates or stores anything.
 */
describe('every body route refuses ill-formed Unicode, excessive depth and numbers past the double range at the edge', () => {
  let t: TestApp;
  let owner: Headers;
  let session: Headers;

  before(async () => {
    t = await createTestApp('sqlite', { RATE_LIMIT_PER_IP: '0' });
    owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
    session = (await portalLogin(t, 'acme', 'owner')).headers;
  });
  after(async () => {
    await t.close();
  });

  // As a client sends them (JSON.stringify itself would overflow the stack on 5,000 levels).
  const bodies: Array<[string, string, string]> = [
    ['a lone surrogate in a value', '{"name":"\\ud800","events":["\\udfff"]}', '/name'],
    ['a lone surrogate in a key', '{"\\udc01devid:q":"x"}', '/\ufffddevid:q'],
    ['a number past the double range', '{"name":1e999,"events":[-1e400]}', '/name'],
    [
      '5,000 levels',
      `{"events":${'['.repeat(5_000)}"x"${']'.repeat(5_000)}}`,
      `/events${'/0'.repeat(MAX_BODY_DEPTH - 1)}`,
    ],
  ];

  test('on every registered POST, PUT and PATCH route', async () => {
    const routes = t.app.registeredRoutes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    assert.ok(routes.length > 40, `only ${routes.length} body routes registered`);
    for (const route of routes) {
      const url = route.url.replace(/:tenantId/g, 'acme').replace(/:[A-Za-z]+/g, 'x1');
      const headers: Headers =
        route.access.kind === 'admin'
          ? { 'x-admin-token': ADMIN_TOKEN }
          : route.access.kind === 'portal'
            ? session
            : route.access.kind === 'tenant'
              ? owner
              : {};
      for (const [title, body, path] of bodies) {
        const res = await t.app.inject({
          method: route.method as 'POST',
          url,
          headers: { ...headers, 'content-type': 'application/json' },
          payload: body,
        });
        const context = `${route.method} ${url} with ${title}: ${res.statusCode} ${res.body.slice(0, 300)}`;
        assert.equal(res.statusCode, 400, context);
        const error = res.json().error;
        assert.equal(
          error.code,
          isPhysicalSurface(url.replace(/^\/v1/, '')) ? 'validation_error' : 'VALIDATION_ERROR',
          context,
        );
        assert.equal(error.details.issues[0].path, path, context);
      }
    }
  });

  test('query strings and path parameters cannot carry one: they are decoded from UTF-8 bytes', async () => {
    // CESU-8 spells a surrogate in three bytes; it is not UTF-8.
    const params = await t.app.inject({ method: 'GET', url: '/intent/%ED%A0%80', headers: owner });
    assert.equal(params.statusCode, 400, params.body);
    assert.equal(params.json().error.code, 'VALIDATION_ERROR');
    const query = await t.app.inject({ method: 'GET', url: '/intents?actorId=%ED%A0%80', headers: owner });
    assert.ok(query.statusCode < 500, query.body);
  });
});
