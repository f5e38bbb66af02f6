import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startServeProcess, stopProcess } from '../helpers/serve-process.js';

describe('authority serve as a process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-serve-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the demo key and a curl line on the first start, and the key works over HTTP', async () => {
    const first = await startServeProcess(dataDir);
    try {
      const key = /Owner API key \(shown once; store it now\): (service_live_[0-9A-Za-z]{43})/.exec(
        first.output,
      )?.[1];
      assert.ok(key, first.output);
      const curl = /curl -s (\S+) -H "Authorization: Bearer (\S+)" -H "x-tenant-id: (\S+)"/.exec(
        first.output,
      );
      assert.ok(curl, 'a ready curl line is printed');
      assert.equal(curl[2], key);
      assert.equal(curl[3], 'demo');

      const response = await fetch(curl[1] ?? '', {
        headers: { authorization: `Bearer ${key}`, 'x-tenant-id': 'demo' },
      });
      assert.equal(response.status, 200);
      const tenant = (await response.json()) as { id: string; plan: string };
      assert.equal(tenant.id, 'demo');
      assert.equal(tenant.plan, 'pro');

      const health = await fetch(`${first.base}/v1/health`);
      assert.equal(health.status, 200);

      // The banner's second line is the web console's address, which the service serves.
      const consoleUrl = /^Web console at (http:\/\/\S+\/console\/) /m.exec(first.output)?.[1];
      assert.equal(consoleUrl, `${first.base}/console/`, first.output);
      const page = await fetch(consoleUrl ?? '');
      assert.ok([200, 404].includes(page.status), 'the console route answers, built or not');
      assert.equal(
        page.headers.get('content-security-policy'),
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
      );
    } finally {
      assert.equal(await stopProcess(first.child), 0, 'SIGTERM shuts down cleanly');
    }
  });

  it('prints nothing secret on later starts', async () => {
    const second = await startServeProcess(dataDir);
    try {
      assert.doesNotMatch(second.output, /service_live_/);
      assert.doesNotMatch(second.output, /Owner API key/);
    } finally {
      await stopProcess(second.child);
    }
  });
});
