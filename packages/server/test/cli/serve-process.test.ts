import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI, startServeProcess, stopProcess } from '../helpers/serve-process.js';

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

      // The banner's second line is the web console's address, which the service serves: on
      // PUBLIC_BASE_URL (default http://localhost:<port>), the origin of its approval URLs.
      const consoleUrl = /^Web console at (http:\/\/\S+\/console\/) /m.exec(first.output)?.[1];
      assert.equal(consoleUrl, `http://localhost:${new URL(first.base).port}/console/`, first.output);
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

  it('prints nothing secret on later starts, and names the console by PUBLIC_BASE_URL', async () => {
    const second = await startServeProcess(dataDir, { PUBLIC_BASE_URL: 'https://authority.example.test/' });
    try {
      assert.doesNotMatch(second.output, /service_live_/);
      assert.doesNotMatch(second.output, /Owner API key/);
      assert.match(second.output, /^Web console at https:\/\/authority\.example\.test\/console\/ /m);
      assert.match(second.output, /^Authority Runtime listening on http:\/\/127\.0\.0\.1:\d+ /m);
    } finally {
      await stopProcess(second.child);
    }
  });

  it('exits 2 naming the setting when the socket cannot be opened: a port in use, an address not here', async () => {
    const running = await startServeProcess(dataDir);
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'authority-serve-'));
    try {
      const port = new URL(running.base).port;
      const cases: Array<[string[], Record<string, string>, RegExp]> = [
        [
          ['--port', port],
          {},
          /^authority: configuration error: --port is in use on 127\.0\.0\.1 \(\d+: EADDRINUSE\)$/,
        ],
        [
          ['--port', '0', '--host', '10.254.254.254'],
          {},
          /^authority: configuration error: --host is not an address of this machine/,
        ],
        [
          ['--port', '0'],
          { HOST: '999.1.1.1' },
          /^authority: configuration error: HOST must be an address or host name/,
        ],
        [
          ['--port', '0'],
          { OTEL_EXPORTER_OTLP_ENDPOINT: 'notaurl' },
          /^authority: configuration error: OTEL_EXPORTER_OTLP_ENDPOINT /,
        ],
      ];
      for (const [args, env, expected] of cases) {
        const result = spawnSync(
          process.execPath,
          ['--import', 'tsx', CLI, 'serve', '--data-dir', elsewhere, ...args],
          {
            env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '', LOG_LEVEL: 'warn', ...env },
            encoding: 'utf8',
            timeout: 60_000,
          },
        );
        const context = `${args.join(' ')} ${JSON.stringify(env)}: ${result.stderr}`;
        assert.equal(result.status, 2, context);
        assert.match(result.stderr.trim(), expected, context);
      }
    } finally {
      await stopProcess(running.child);
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
