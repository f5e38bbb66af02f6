import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

interface Started {
  child: ChildProcess;
  output: string;
  base: string;
}

/** Starts `authority serve` and resolves once it prints its listening line (and the demo block, if any). */
function startServe(dataDir: string): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'serve', '--port', '0', '--data-dir', dataDir],
    {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', AUTHORITY_MASTER_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}${errors}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^ ]+) /.exec(output);
      // The demo block, when printed, arrives in the same write as the listening line.
      if (match?.[1] && output.endsWith('\n')) {
        clearTimeout(timer);
        resolve({ child, output, base: match[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}${errors}`)));
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('authority serve as a process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-serve-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the demo key and a curl line on the first start, and the key works over HTTP', async () => {
    const first = await startServe(dataDir);
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
    } finally {
      assert.equal(await stop(first.child), 0, 'SIGTERM shuts down cleanly');
    }
  });

  it('prints nothing secret on later starts', async () => {
    const second = await startServe(dataDir);
    try {
      assert.doesNotMatch(second.output, /service_live_/);
      assert.doesNotMatch(second.output, /Owner API key/);
    } finally {
      await stop(second.child);
    }
  });
});
