import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  ACTOR_ID,
  callLog,
  connectStdio,
  decisionOf,
  gatewayArgs,
  gatewayEnv,
  NODE_TS,
  RATIONALE,
  RECORDING_STDIO,
  type Service,
  type StdioGateway,
  scratch,
  startService,
  textOf,
} from './gateway-harness.js';
import { RECORDING_TOOLS } from './recording-upstream.js';

describe('authority gateway over stdio, in front of a recording upstream', () => {
  let service: Service;
  let gateway: StdioGateway;
  const files = scratch();
  const config = {
    targetSystem: 'acme/mcp-tools',
    tools: { secret_admin: { hidden: true }, 'run_*': { riskContext: { baseRiskScore: 20 } } },
  };

  before(async () => {
    service = await startService();
    gateway = await connectStdio(
      {
        serviceUrl: service.proxy.url,
        agentKey: service.agentKey,
        upstream: { command: [...NODE_TS, RECORDING_STDIO] },
        config,
        env: { RECORD_FILE: files.recordFile },
      },
      files.dir,
    );
  });
  after(async () => {
    await gateway?.close();
    await service?.close();
    files.dispose();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    gateway.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const callsTo = (name: string) => files.calls().filter((c) => c.name === name);

  it('initializes as authority-gateway with only the tools capability, listChanged from the upstream', () => {
    assert.equal(gateway.client.getServerVersion()?.name, 'authority-gateway');
    assert.deepEqual(gateway.client.getServerCapabilities(), { tools: { listChanged: true } });
  });

  it('declares no client capabilities towards the upstream, and gives it no AUTHORITY_* variable', () => {
    const records = files.records();
    const start = records.find((r) => r.event === 'start');
    const initialized = records.find((r) => r.event === 'initialized');
    assert.ok(start && initialized);
    assert.deepEqual(initialized.capabilities, {});
    assert.deepEqual((initialized.clientInfo as { name: string }).name, 'authority-gateway');
    const names = Object.keys(start.env);
    assert.deepEqual(
      names.filter((name) => name.toUpperCase().startsWith('AUTHORITY_')),
      [],
    );
    assert.ok(!Object.values(start.env).some((value) => value?.includes(service.agentKey)));
    // The rest of the environment does reach it (the upstream's own settings travel that way).
    assert.ok(names.includes('RECORD_FILE') && names.includes('PATH'));
  });

  it('lists every page of the upstream tools, minus hidden ones', async () => {
    const { tools, nextCursor } = await gateway.client.listTools();
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      tools.map((tool) => tool.name),
      RECORDING_TOOLS.map((tool) => tool.name).filter((name) => name !== 'secret_admin'),
    );
    assert.deepEqual(
      tools.find((tool) => tool.name === 'get_report'),
      RECORDING_TOOLS.find((tool) => tool.name === 'get_report'),
    );
  });

  it('forwards an approved call exactly once and returns its result unchanged; the token is spent', async () => {
    const before = service.proxy.requests.length;
    const path = `docs/${randomUUID()}.md`;
    const result = await call('read_file', { path });
    assert.deepEqual(result, { content: [{ type: 'text', text: `contents of ${path}` }] });
    assert.deepEqual(
      callsTo('read_file').filter((c) => c.arguments?.path === path),
      [{ event: 'call', name: 'read_file', arguments: { path } }],
    );
    const sent = service.proxy.requests.slice(before);
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.url}`),
      ['POST /intent', 'POST /authority/tokens/consume'],
    );
    const intent = JSON.parse(sent[0]?.body ?? '{}') as Record<string, unknown>;
    assert.deepEqual(intent.args, { tool: 'read_file', arguments: { path } });
    assert.equal(intent.proposedAction, `read_file ${JSON.stringify({ path })}`);
    assert.deepEqual(intent.actor, { id: ACTOR_ID, type: 'agent' });
    assert.deepEqual(intent.riskContext, { baseRiskScore: 10 });
    assert.match(String(sent[0]?.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
    const consumed = JSON.parse(sent[1]?.body ?? '{}') as {
      token: string;
      adapterId: string;
      targetSystem: string;
    };
    assert.equal(consumed.adapterId, 'external');
    assert.equal(consumed.targetSystem, 'acme/mcp-tools');
    // The nonce is consumed: the same token presented again is refused.
    const replay = await service.owner.consumeToken(consumed);
    assert.deepEqual(replay, { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });
  });

  it('refuses a denied call with the deciding rule and never forwards it', async () => {
    const result = await call('frobnicate', { level: 3 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^DENIED by signal:default: .+/);
    const meta = decisionOf(result);
    assert.equal(meta.decision, 'DENIED');
    assert.equal(typeof meta.intentId, 'string');
    assert.deepEqual(meta.decidingRule, { id: 'signal:default', effect: 'DENY', priority: 0 });
    assert.deepEqual(result.structuredContent, { authority: meta });
    assert.deepEqual(callsTo('frobnicate'), []);
  });

  it('refuses an escalated call, remembers it, and forwards it once after approval', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const first = await call('write_file', { path, content: 'hello' });
    const meta = decisionOf(first);
    assert.equal(first.isError, true);
    assert.equal(
      textOf(first),
      `ESCALATED: approval required (escalation ${meta.escalationId}, intent ${meta.intentId})`,
    );
    assert.deepEqual(meta.decidingRule, {
      id: 'mcp-basics/escalate-write-tools',
      effect: 'ESCALATE',
      priority: 40,
    });
    assert.deepEqual(first.structuredContent, { authority: meta });

    const intentsBefore = await service.intents();
    const pending = await call('write_file', { content: 'hello', path });
    assert.equal(textOf(pending), textOf(first));
    assert.deepEqual(await service.intents(), intentsBefore, 'a repeat is not submitted again');
    assert.deepEqual(callsTo('write_file'), []);

    await service.approver.decideApproval({
      intentId: String(meta.intentId),
      decision: 'approve',
      rationale: RATIONALE,
    });
    const approved = await call('write_file', { path, content: 'hello' });
    assert.deepEqual(approved, { content: [{ type: 'text', text: `wrote 5 characters to ${path}` }] });
    assert.equal(callsTo('write_file').length, 1);
    assert.deepEqual(await service.intents(), intentsBefore);

    // One approval, one call: the next repeat is a new request.
    const again = await call('write_file', { path, content: 'hello' });
    assert.match(textOf(again), /^ESCALATED: approval required/);
    assert.notEqual(decisionOf(again).intentId, meta.intentId);
    assert.equal(callsTo('write_file').length, 1);
  });

  it('refuses a remembered escalation once it is denied, without submitting it again', async () => {
    const args = { path: `notes/${randomUUID()}.txt`, content: 'x' };
    const first = decisionOf(await call('write_file', args));
    await service.approver.decideApproval({
      intentId: String(first.intentId),
      decision: 'deny',
      rationale: RATIONALE,
    });
    const intentsBefore = await service.intents();
    for (let i = 0; i < 2; i += 1) {
      const refused = await call('write_file', args);
      assert.equal(refused.isError, true);
      assert.equal(
        textOf(refused),
        `DENIED by review: escalation ${first.escalationId} (intent ${first.intentId}) was denied`,
      );
      assert.deepEqual(decisionOf(refused), {
        decision: 'DENIED_AFTER_REVIEW',
        intentId: first.intentId,
        escalationId: first.escalationId,
      });
    }
    assert.deepEqual(await service.intents(), intentsBefore);
    assert.equal(callsTo('write_file').filter((c) => c.arguments?.path === args.path).length, 0);
  });

  it('refuses an expired escalation, then submits the next repeat anew', async () => {
    const args = { path: `notes/${randomUUID()}.txt` };
    const first = decisionOf(await call('write_file', args));
    service.t.clock.advance(3_601_000);
    const refused = await call('write_file', args);
    assert.equal(
      textOf(refused),
      `EXPIRED: escalation ${first.escalationId} (intent ${first.intentId}) expired without a decision`,
    );
    assert.equal(decisionOf(refused).decision, 'EXPIRED');
    const next = decisionOf(await call('write_file', args));
    assert.equal(next.decision, 'ESCALATED');
    assert.notEqual(next.intentId, first.intentId);
    assert.equal(callsTo('write_file').filter((c) => c.arguments?.path === args.path).length, 0);
  });

  it('sends catastrophic calls to two-person review; nothing reaches the upstream before both approve', async () => {
    const command = `rm -rf /tmp/${randomUUID()}`;
    const result = await call('run_command', { command });
    const meta = decisionOf(result);
    assert.equal(meta.decision, 'ESCALATED');
    assert.deepEqual(meta.decidingRule, { id: 'catastrophic-floor', effect: 'ESCALATE', priority: 1 });
    const view = await service.owner.getIntent(String(meta.intentId));
    assert.equal(view.approval?.queue, 'catastrophic-review');
    assert.equal(view.approval?.requiredApprovals, 2);
    assert.deepEqual(view.request.riskContext, { baseRiskScore: 20 });
    await service.seniors[0].decideApproval({
      intentId: String(meta.intentId),
      decision: 'approve',
      rationale: RATIONALE,
    });
    assert.match(textOf(await call('run_command', { command })), /^ESCALATED: approval required/);
    assert.deepEqual(callsTo('run_command'), []);
    await service.seniors[1].decideApproval({
      intentId: String(meta.intentId),
      decision: 'approve',
      rationale: RATIONALE,
    });
    assert.equal(textOf(await call('run_command', { command })), `ran ${command}`);
    assert.equal(callsTo('run_command').length, 1);
  });

  it('gives no structuredContent to a refusal of a tool that declares an outputSchema', async () => {
    const refused = await call('get_report', { format: 'delete' });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent, undefined);
    assert.equal(decisionOf(refused).decision, 'ESCALATED');
    const approved = await call('get_report', {});
    assert.deepEqual(approved.structuredContent, { lines: 3 });
    assert.equal(callsTo('get_report').length, 1);
  });

  it('refuses hidden and unknown tools itself, and arguments beyond the args limits', async () => {
    const before = service.proxy.requests.length;
    for (const name of ['secret_admin', 'no_such_tool']) {
      const result = await call(name, {});
      assert.equal(textOf(result), 'DENIED by gateway: unknown tool');
      assert.deepEqual(decisionOf(result), { decision: 'DENIED', code: 'UNKNOWN_TOOL' });
    }
    const big = await call('read_file', { path: 'x'.repeat(70_000) });
    assert.equal(textOf(big), 'DENIED by gateway: arguments too large');
    assert.deepEqual(decisionOf(big), { decision: 'DENIED', code: 'ARGUMENTS_TOO_LARGE' });
    assert.deepEqual(big.structuredContent, {
      authority: { decision: 'DENIED', code: 'ARGUMENTS_TOO_LARGE' },
    });
    assert.equal(service.proxy.requests.length, before, 'nothing was sent to the service');
    assert.deepEqual(callsTo('secret_admin'), []);
    assert.equal(callsTo('read_file').filter((c) => String(c.arguments?.path).length > 1000).length, 0);
  });

  it('relays the upstream progress of an approved call', async () => {
    const progress: number[] = [];
    const result = (await gateway.client.callTool(
      { name: 'fetch_slowly', arguments: { steps: 3 } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    )) as CallToolResult;
    assert.equal(textOf(result), 'fetched in 3 steps');
    assert.deepEqual(progress, [1, 2, 3]);
    // The upstream got its own progress token, not the agent's.
    const [forwarded] = callsTo('fetch_slowly');
    assert.equal(typeof forwarded?.meta?.progressToken, 'number');
  });

  it('announces a change of the upstream tool list, and lists the new tool', async () => {
    const start = files.records().find((r) => r.event === 'start');
    assert.ok(start);
    const changed = new Promise<void>((resolve) =>
      gateway.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    process.kill(start.pid, 'SIGUSR2');
    await changed;
    const { tools } = await gateway.client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'late_tool'));
  });

  it('refuses a tools/call sent before initialize: nothing is decided, nothing forwarded', async () => {
    // The same call after initialize is approved and forwarded (above), so both checks can fail.
    const own = scratch();
    const options = {
      serviceUrl: service.proxy.url,
      agentKey: service.agentKey,
      upstream: { command: [...NODE_TS, RECORDING_STDIO] },
      config,
      env: { RECORD_FILE: own.recordFile },
    };
    const child = spawn(process.execPath, gatewayArgs(options, own.dir), {
      env: gatewayEnv(options),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const before = service.proxy.requests.length;
    try {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
      });
      const path = `docs/${randomUUID()}.md`;
      const early = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path } },
      };
      child.stdin?.write(`${JSON.stringify(early)}\n`);
      for (let i = 0; i < 300 && !out.includes('\n'); i += 1) await sleep(100);
      const answer = JSON.parse(out.split('\n')[0] ?? '') as {
        id: number;
        error?: { code: number; message: string };
      };
      assert.equal(answer.id, 7);
      assert.equal(answer.error?.code, -32600, out);
      // As written, without the `MCP error -32600: ` an SDK client adds itself (else it shows twice).
      assert.equal(answer.error?.message, 'Send initialize before tools/call');
      // The start-up probe reads the tenant (docs/mcp-gateway.md); nothing else may reach the service.
      const probe = (r: { method: string; url: string }) => r.method === 'GET' && r.url === '/tenant';
      assert.deepEqual(
        service.proxy.requests.slice(before).filter((r) => r.url !== '/health' && !probe(r)),
        [],
        'the service was asked nothing',
      );
      assert.deepEqual(own.calls(), [], 'the upstream received no call');
    } finally {
      child.kill();
      own.dispose();
    }
  });

  it('answers malformed tools/call params with -32602 (invalid params): nothing decided, nothing forwarded', async () => {
    const before = service.proxy.requests.length;
    const calls = files.calls().length;
    for (const params of [{ name: 42 }, { name: 'read_file', arguments: ['docs/a.md'] }, {}, undefined]) {
      await assert.rejects(
        gateway.client.request(
          (params === undefined ? { method: 'tools/call' } : { method: 'tools/call', params }) as never,
          CallToolResultSchema,
        ),
        (error: unknown) => error instanceof McpError && error.code === ErrorCode.InvalidParams,
        JSON.stringify(params),
      );
    }
    assert.deepEqual(service.proxy.requests.slice(before), [], 'the service was asked nothing');
    assert.equal(files.calls().length, calls, 'the upstream received no call');
  });

  it('logs one JSON line per call on standard error, never an argument value', async () => {
    const marker = `MARKER-${randomUUID()}`;
    const before = callLog(gateway.stderr()).length;
    await call('read_file', { path: marker });
    await call('write_file', { path: marker, content: marker });
    await call('frobnicate', { level: marker });
    const lines = (await gateway.callLogOf(before + 3)).slice(before);
    assert.deepEqual(
      lines.map((line) => [line.tool, line.decision]),
      [
        ['read_file', 'APPROVED'],
        ['write_file', 'ESCALATED'],
        ['frobnicate', 'DENIED'],
      ],
    );
    for (const line of lines) {
      assert.equal(typeof line.intentId, 'string');
      assert.equal(typeof line.ms, 'number');
      assert.deepEqual(Object.keys(line).sort(), ['decision', 'event', 'intentId', 'ms', 'time', 'tool']);
    }
    assert.ok(!gateway.stderr().includes(marker), 'argument values never reach the log');
    assert.ok(!gateway.stderr().includes(service.agentKey));
  });
});
