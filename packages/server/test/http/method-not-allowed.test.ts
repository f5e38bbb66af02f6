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
});
