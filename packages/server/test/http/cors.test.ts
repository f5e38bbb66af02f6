import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';

/** Contract §13.4: `CORS_ORIGINS` lets browsers on those exact origins call the API; none by default. */
const APP = 'https://app.example.org';
const DEV = 'http://localhost:5173';

describe('CORS with CORS_ORIGINS', () => {
  let t: TestApp;
  let headers: Headers;
  before(async () => {
    t = await createTestApp('sqlite', { CORS_ORIGINS: `${APP}, ${DEV}/` });
    headers = await t.ownerHeaders('acme');
  });
  after(async () => {
    await t.close();
  });

  it('lets an allowed origin read answers, errors included, and the headers it needs', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/tenant', headers: { ...headers, origin: DEV } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.headers['access-control-allow-origin'], DEV);
    assert.match(String(ok.headers.vary), /origin/i);
    const exposed = String(ok.headers['access-control-expose-headers']);
    for (const name of ['x-request-id', 'retry-after', 'allow']) assert.ok(exposed.includes(name), exposed);

    const refused = await t.app.inject({ method: 'GET', url: '/tenant', headers: { origin: APP } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], APP, 'a browser can read the 401');
  });

  it('gives an origin not in the list no CORS header (the browser refuses the answer)', async () => {
    for (const origin of ['https://evil.example.org', 'https://app.example.org.evil.net', 'null']) {
      const res = await t.app.inject({ method: 'GET', url: '/tenant', headers: { ...headers, origin } });
      assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/intent',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.statusCode, 204, origin);
      assert.equal(preflight.headers['access-control-allow-origin'], undefined, origin);
    }
  });

  it('answers preflights 204 with the methods and headers a client sends, never 404', async () => {
    for (const url of ['/intent', '/v1/intent/abc/token', '/physical/classify', '/no/such/path']) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: APP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, x-tenant-id, idempotency-key, content-type',
        },
      });
      assert.equal(res.statusCode, 204, `${url}: ${res.body}`);
      assert.equal(res.headers['access-control-allow-origin'], APP);
      assert.match(String(res.headers['access-control-allow-methods']), /POST/);
      const allowed = String(res.headers['access-control-allow-headers']);
      for (const name of ['authorization', 'x-tenant-id', 'idempotency-key', 'x-api-key', 'content-type']) {
        assert.ok(allowed.includes(name), allowed);
      }
      assert.equal(res.headers['access-control-max-age'], '600');
    }
  });

  it('keeps 404 for unknown paths and 405 with allow for a known path with another method', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/no/such/path', headers: { origin: APP } });
    assert.equal(missing.statusCode, 404);
    const wrong = await t.app.inject({ method: 'GET', url: '/intent', headers: { origin: APP } });
    assert.equal(wrong.statusCode, 405);
    assert.equal(wrong.headers.allow, 'POST');
    assert.equal(wrong.headers['access-control-allow-origin'], APP);
  });
});

describe('CORS without CORS_ORIGINS', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => {
    await t.close();
  });

  it('sends no CORS header, and OPTIONS on a known path is 405 with allow', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health', headers: { origin: APP } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/intent',
      headers: { origin: APP, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 405);
    assert.equal(preflight.headers.allow, 'POST');
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });
});

describe('CORS_ORIGINS parsing', () => {
  it('takes exact origins and refuses anything else', () => {
    assert.deepEqual(loadConfig({ CORS_ORIGINS: `${APP},${DEV}/` }).corsOrigins, [APP, DEV]);
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    for (const bad of ['*', 'app.example.org', 'https://app.example.org/path', 'ftp://example.org']) {
      assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), ConfigError, bad);
    }
  });
});
