import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_CSP } from '../../src/http/routes/console.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** The console's static files under /console/ (contract §14), over a stand-in build. */

const INDEX =
  '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1a2b.js"></script>';
const SCRIPT = 'console.log("app")';

describe('the console files', () => {
  let t: TestApp;
  let missing: TestApp;
  let root: string;

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
    mkdirSync(path.join(root, 'assets'));
    writeFileSync(path.join(root, 'index.html'), INDEX);
    writeFileSync(path.join(root, 'assets', 'app-1a2b.js'), SCRIPT);
    writeFileSync(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(path.join(path.dirname(root), 'outside-console.txt'), 'secret');
    t = await createTestApp('sqlite', {}, undefined, { consoleDir: root });
    missing = await createTestApp('sqlite', {}, undefined, { consoleDir: path.join(root, 'nothing-here') });
  });
  after(async () => {
    await t.close();
    await missing.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(path.join(path.dirname(root), 'outside-console.txt'), { force: true });
  });

  const get = (url: string, app = t) => app.app.inject({ method: 'GET', url });

  it('serves the application for every page path, with the CSP and no cache, and no cookie', async () => {
    for (const url of [
      '/console/',
      '/console/approvals',
      '/console/approvals/esc_0190',
      '/console/a/b?c=d',
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.equal(res.body, INDEX, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });

  it('serves hashed assets as immutable and a missing asset as 404, never as the page', async () => {
    const asset = await get('/console/assets/app-1a2b.js');
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.body, SCRIPT);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(asset.headers['content-security-policy'], CONSOLE_CSP);
    const icon = await get('/console/favicon.svg');
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['cache-control'], 'no-cache');
    const gone = await get('/console/assets/app-0000.js');
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().error.code, 'NOT_FOUND');
  });

  it('redirects /console to /console/ and needs no credential or tenant header', async () => {
    const res = await get('/console');
    assert.equal(res.statusCode, 308);
    assert.equal(res.headers.location, '/console/');
    assert.equal((await get('/v1/console/')).statusCode, 200);
  });

  it('never serves a file outside the build', async () => {
    for (const url of [
      '/console/../outside-console.txt',
      '/console/%2e%2e/outside-console.txt',
      '/console/..%2foutside-console.txt',
      '/console/assets/..%2f..%2foutside-console.txt',
    ]) {
      const res = await get(url);
      assert.ok(!res.body.includes('secret'), `${url}: ${res.statusCode} ${res.body}`);
    }
  });

  it('says the console is not built when its folder is missing', async () => {
    const res = await get('/console/', missing);
    assert.equal(res.statusCode, 404);
    assert.match(res.json().error.message, /not built/);
    assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
  });
});
