import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { quote } from 'shlex';
import { CLI, NODE_TS, RECORDING_STDIO, scratch, startService, TENANT } from './gateway-harness.js';

const KEY = `service_live_${'k'.repeat(43)}`;
const SERVICE = {
  AUTHORITY_URL: 'http://127.0.0.1:9',
  AUTHORITY_TENANT: 'acme',
  AUTHORITY_API_KEY: KEY,
  AUTHORITY_TARGET_SYSTEM: 'acme/tools',
};

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AUTHORITY_')) env[name] = value;
  }
  return env;
}

function gateway(args: string[], env: Record<string, string | undefined>) {
  const result = spawnSync(process.execPath, [...NODE_TS.slice(1), CLI, 'gateway', ...args], {
    env: { ...baseEnv(), ...env } as NodeJS.ProcessEnv,
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The gateway run to its exit without blocking this process (whose service it may call). */
async function gatewayExit(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [...NODE_TS.slice(1), CLI, 'gateway', ...args], {
    env: { ...baseEnv(), ...env } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { status, stdout, stderr };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('authority gateway (command line)', () => {
  const files = scratch();
  after(() => files.dispose());

  it('exits 2 with one line naming a missing or invalid setting', () => {
    // Every setting's message is covered by gateway-settings.test.ts; these go through the real process.
    const cases: Array<[string[], Record<string, string | undefined>, RegExp]> = [
      [
        ['--upstream', 'node x.js'],
        { ...SERVICE, AUTHORITY_URL: undefined },
        /AUTHORITY_URL \(--base-url\) is required/,
      ],
      [
        ['--upstream', 'node x.js', '--key', 'not-a-key'],
        SERVICE,
        /AUTHORITY_API_KEY \(--key\) must be an API key/,
      ],
      [[], SERVICE, /--upstream or --upstream-url is required/],
      [['--upstream', 'node x.js', '--bogus'], SERVICE, /unknown option '--bogus'/],
      [['--upstream'], SERVICE, /option '--upstream <command line>' argument missing/],
    ];
    for (const [args, env, expected] of cases) {
      const result = gateway(args, env);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, expected);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.equal(result.stdout, '');
      assert.ok(!result.stderr.includes(KEY));
    }
  });

  it('exits 2 naming the config file and the path of its problem', () => {
    const file = path.join(files.dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({ targetSystem: 'acme/tools', tools: { 'write_*': { hidden: 'yes' } } }),
    );
    const result = gateway(['--upstream', 'node x.js', '--config', file], SERVICE);
    assert.equal(result.status, 2);
    assert.equal(
      result.stderr.trim(),
      `authority: configuration error: --config ${file}: tools["write_*"].hidden: must be boolean`,
    );
    const missing = gateway(
      ['--upstream', 'node x.js', '--config', path.join(files.dir, 'none.json')],
      SERVICE,
    );
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /none\.json: cannot be read \(ENOENT\)/);
  });

  it('exits 2 naming the setting the service refuses at start, before starting the upstream', async () => {
    const service = await startService();
    const notTheService = createServer((request, response) => {
      // Another JSON API on this path: an object, but not the tenant.
      if (request.url?.startsWith('/json/')) {
        const body = request.url === '/json/other/tenant' ? { id: 'globex', name: 'x' } : { hello: 'world' };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        return;
      }
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    });
    await new Promise<void>((resolve) => notTheService.listen(0, '127.0.0.1', resolve));
    const address = notTheService.address();
    const elsewhere = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const upstream = ['--upstream', [...NODE_TS, RECORDING_STDIO].map(quote).join(' ')];
      const env = {
        ...SERVICE,
        AUTHORITY_URL: service.base,
        AUTHORITY_TENANT: TENANT,
        AUTHORITY_API_KEY: service.agentKey,
        RECORD_FILE: files.recordFile,
      };
      const cases: Array<[Record<string, string>, RegExp]> = [
        [
          { AUTHORITY_API_KEY: KEY },
          /^authority: configuration error: AUTHORITY_API_KEY \(--key\) is not accepted by the service: GET \/tenant answered 401 /,
        ],
        [
          { AUTHORITY_TENANT: 'globex' },
          /^authority: configuration error: AUTHORITY_TENANT \(--tenant\) is not the API key's tenant: GET \/tenant answered 403 TENANT_MISMATCH /,
        ],
        [
          { AUTHORITY_URL: elsewhere },
          /^authority: configuration error: AUTHORITY_URL \(--base-url\) does not answer as the service does: GET \/tenant answered 404 INVALID_RESPONSE /,
        ],
        [
          { AUTHORITY_URL: `${elsewhere}/json` },
          /^authority: configuration error: AUTHORITY_URL \(--base-url\) does not answer as the service does: GET \/tenant answered 200 without the tenant acme/,
        ],
        [
          { AUTHORITY_URL: `${elsewhere}/json/other` },
          /^authority: configuration error: AUTHORITY_URL \(--base-url\) does not answer as the service does: GET \/tenant answered 200 without the tenant acme/,
        ],
      ];
      for (const [wrong, expected] of cases) {
        const result = await gatewayExit(upstream, { ...env, ...wrong });
        assert.equal(result.status, 2, result.stderr);
        assert.match(result.stderr, expected);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.equal(result.stdout, '');
        assert.ok(!result.stderr.includes(KEY) && !result.stderr.includes(service.agentKey));
      }
      assert.deepEqual(files.records(), [], 'the upstream was never started');
    } finally {
      notTheService.close();
      await service.close();
    }
  });

  it('exits 1 when the upstream command cannot be started', () => {
    const result = gateway(['--upstream', path.join(files.dir, 'no-such-server')], SERVICE);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /the upstream MCP server \(.*no-such-server\) could not be reached/);
  });

  it('exits 1 when the upstream goes away', async () => {
    const records = scratch();
    const child = spawn(
      process.execPath,
      [...NODE_TS.slice(1), CLI, 'gateway', '--upstream', [...NODE_TS, RECORDING_STDIO].map(quote).join(' ')],
      {
        env: { ...baseEnv(), ...SERVICE, RECORD_FILE: records.recordFile },
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 300 && !records.records().some((r) => r.event === 'initialized'); i += 1)
      await sleep(100);
    const start = records.records().find((r) => r.event === 'start');
    assert.ok(start, 'the upstream started');
    process.kill(start.pid, 'SIGKILL');
    assert.equal(await exited, 1);
    assert.match(
      stderr,
      /the service at http:\/\/127\.0\.0\.1:9 did not answer at start \(NETWORK_ERROR: .*\); every call is refused until it does/,
    );
    assert.match(stderr, /the upstream MCP server closed the connection/);
    records.dispose();
  });

  it('exits when the agent closes its standard input, and stops the upstream with it', async () => {
    const child = spawn(
      process.execPath,
      [...NODE_TS.slice(1), CLI, 'gateway', '--upstream', [...NODE_TS, RECORDING_STDIO].map(quote).join(' ')],
      {
        env: { ...baseEnv(), ...SERVICE, RECORD_FILE: files.recordFile },
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 300 && !files.records().some((r) => r.event === 'initialized'); i += 1)
      await sleep(100);
    const start = files.records().find((r) => r.event === 'start');
    assert.ok(start, 'the upstream started');
    child.stdin?.end();
    assert.equal(await exited, 0);
    for (let i = 0; i < 50 && alive(start.pid); i += 1) await sleep(100);
    assert.equal(alive(start.pid), false, 'the upstream process is gone');
  });
});
