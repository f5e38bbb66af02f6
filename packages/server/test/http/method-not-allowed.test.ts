import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** Contract §1: a known path called with another method is 405 with `allow`, checked right after 404. */
describe('405 METHOD_NOT_ALLOWED', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { RATE_LIMIT_PER_IP: '1' });
  });
  after(async () => {
    await t.close();
  });

  it('answers a known path with another method 405, naming the allowed methods, before any credential', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['GET', '/intent', 'POST', 'METHOD_NOT_ALLOWED'],
      ['PUT', '/intent/0190f5c2-1111-7000-8000-000000000001', 'GET, HEAD', 'METHOD_NOT_ALLOWED'],
      ['PATCH', '/health', 'GET, HEAD', 'METHOD_NOT_ALLOWED'],
      ['DELETE', '/v1/authority/policy', 'GET, HEAD, POST', 'METHOD_NOT_ALLOWED'],
      ['DELETE', '/v1/physical/actors', 'GET, HEAD, POST', 'method_not_allowed'],
      ['GET', '/v1/physical/authority-tokens', 'POST', 'method_not_allowed'],
    ];
    for (const [method, url, allow, code] of cases) {
      const res = await t.app.inject({ method: method as 'GET', url });
      const context = `${method} ${url}: ${res.statusCode} ${res.body}`;
      assert.equal(res.statusCode, 405, context);
      assert.equal(res.headers.allow, allow, context);
      const body = res.json();
      assert.deepEqual(Object.keys(body), ['error'], context);
      assert.equal(body.error.code, code, context);
      assert.equal(body.error.requestId, res.headers['x-request-id'], context);
    }
  });

  it('an unknown path stays 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/no/such/path' });
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
      assert.equal(res.headers.allow, undefined);
    }
  });

  it('answers 404 and 405 before the body is read: malformed JSON, an oversized body, any content type', async () => {
    const oversized = `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`;
    const cases: Array<[string, string, string, number, string]> = [
      ['POST', '/nope', '{', 404, 'NOT_FOUND'],
      ['POST', '/nope', oversized, 404, 'NOT_FOUND'],
      ['PUT', '/intent', '{', 405, 'METHOD_NOT_ALLOWED'],
      ['DELETE', '/intent', '{', 405, 'METHOD_NOT_ALLOWED'],
      ['PUT', '/intent', oversized, 405, 'METHOD_NOT_ALLOWED'],
      ['PUT', '/v1/physical/authority-tokens', '{', 405, 'method_not_allowed'],
    ];
    for (const [method, url, payload, status, code] of cases) {
      for (const contentType of ['application/json', 'text/plain']) {
        const res = await t.app.inject({
          method: method as 'POST',
          url,
          headers: { 'content-type': contentType },
          payload,
        });
        const context = `${method} ${url} (${contentType}, ${payload.length} bytes): ${res.statusCode} ${res.body.slice(0, 200)}`;
        assert.equal(res.statusCode, status, context);
        assert.equal(res.json().error.code, code, context);
        if (status === 405) assert.equal(res.headers.allow, 'POST', context);
      }
    }
  });

  it("a path with an empty segment where an id goes is unknown: 404, not a sibling route's 405 or 400", async () => {
    // Every id is at least one character, so `/intent/` is no declared path, with or without credentials.
    const headers = await t.ownerHeaders('acme');
    const cases: Array<[string, string, string]> = [
      ['POST', '/intent/', 'NOT_FOUND'],
      ['GET', '/v1/intent/', 'NOT_FOUND'],
      ['GET', '/keys/', 'NOT_FOUND'],
      ['POST', '/connectors/', 'NOT_FOUND'],
      ['GET', '/webhooks/', 'NOT_FOUND'],
      ['POST', '/webhooks/', 'NOT_FOUND'],
      ['GET', '/authority/approvals/', 'NOT_FOUND'],
      ['GET', '/intent//receipt', 'NOT_FOUND'],
      ['GET', '/v1/physical/approvals/', 'not_found'],
    ];
    for (const [method, url, code] of cases) {
      for (const withCredential of [false, true]) {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          ...(withCredential ? { headers, payload: method === 'POST' ? {} : undefined } : {}),
        });
        const context = `${method} ${url} (credential: ${withCredential}): ${res.statusCode} ${res.body}`;
        assert.equal(res.statusCode, 404, context);
        assert.equal(res.json().error.code, code, context);
        assert.equal(res.headers.allow, undefined, context);
      }
    }
    // The console's wildcard may be empty: its index stays served.
    assert.equal((await t.app.inject({ url: '/console/' })).statusCode, 200);
  });

  it('reads the surface from the decoded path: a percent-encoded /physical answers lower-snake codes', async () => {
    // This suite allows one request per address: past 404 and 405, every request here is a 429,
    // which carries the surface's code as well.
    const cases: Array<[string, string, number, string]> = [
      ['DELETE', '/%70hysical/classify', 405, 'method_not_allowed'],
      ['POST', '/v1/%70hysical/classify', 429, 'rate_limited'],
      ['POST', '/v1/physical%2Fclassify', 404, 'not_found'],
      ['GET', '/%E2%82%AC/x', 404, 'NOT_FOUND'],
      ['GET', '/%zz/physical', 400, 'VALIDATION_ERROR'],
      ['GET', '/%69ntent/x/y', 404, 'NOT_FOUND'],
    ];
    await t.app.inject({ url: '/tenant' });
    for (const [method, url, status, code] of cases) {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { 'x-tenant-id': 'acme', 'content-type': 'application/json' },
        ...(method === 'POST' ? { payload: '{}' } : {}),
      });
      const context = `${method} ${url}: ${res.statusCode} ${res.body}`;
      assert.equal(res.statusCode, status, context);
      assert.equal(res.json().error.code, code, context);
    }
  });
});
