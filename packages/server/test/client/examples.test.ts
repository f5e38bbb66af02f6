import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuthorityClient } from '@authority-runtime/sdk';
import { type ServeProcess, startServeProcess, stopProcess } from '../helpers/serve-process.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../../sdk/examples');

/** Runs one example of the SDK as a user would, with tsx, and resolves its exit code and output. */
function runExample(
  name: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(EXAMPLES, name)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

/** The SDK's examples, run against a real `authority serve`, as CI runs them. */
describe('the SDK examples against authority serve', () => {
  let dataDir: string;
  let serve: ServeProcess;
  let env: Record<string, string>;
  let ownerKey: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'authority-examples-'));
    serve = await startServeProcess(dataDir);
    const match = /Owner API key \(shown once; store it now\): (\S+)/.exec(serve.output);
    assert.ok(match?.[1], serve.output);
    ownerKey = match[1];
    const owner = new AuthorityClient({ baseUrl: serve.base, tenantId: 'demo', apiKey: ownerKey });
    const agent = await owner.keys.createApiKey({ name: 'example agent', role: 'agent' });
    const approver = await owner.keys.createApiKey({ name: 'example reviewer', role: 'approver' });
    env = {
      AUTHORITY_URL: serve.base,
      AUTHORITY_TENANT: 'demo',
      AUTHORITY_API_KEY: agent.key,
      AUTHORITY_APPROVER_KEY: approver.key,
    };
  });
  after(async () => {
    await stopProcess(serve.child);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('agent-loop.ts: approved, escalated then approved, and denied, with tokens verified by the executor', async () => {
    const { code, output } = await runExample('agent-loop.ts', env);
    assert.equal(code, 0, output);
    assert.match(output, /^APPROVED \S+ by starter\/allow-reads: list open pull requests$/m);
    assert.match(output, /^ESCALATED \S+ by starter\/escalate-writes: merge pull request 42$/m);
    assert.match(output, /review finished: APPROVED_AFTER_REVIEW/);
    assert.equal(output.match(/^executor: /gm)?.length, 2, 'both tokens verified and used once');
    assert.match(output, /^DENIED \S+ by signal:default: list open pull requests$/m);
  });

  it('audit-verify.ts: pages through the timeline and verifies the export', async () => {
    const { code, output } = await runExample('audit-verify.ts', { ...env, AUTHORITY_API_KEY: ownerKey });
    assert.equal(code, 0, output);
    assert.match(output, /"intent\.decided":3/);
    assert.match(output, /^VALID: \d+ entries, head [0-9a-f]{64}$/m);
  });
});
