import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  decisionOf,
  type HttpGateway,
  RATIONALE,
  type Service,
  scratch,
  serveOverHttp,
  startHttpGateway,
  startService,
  textOf,
} from './gateway-harness.js';
import { createRecordingServer, type Recorded } from './recording-upstream.js';

/** The recording upstream served over Streamable HTTP in this process (the gateway's `--upstream-url`). */
async function startHttpUpstream() {
  const records: Recorded[] = [];
  const { server } = createRecordingServer((entry) => records.push(entry));
  const served = await serveOverHttp(server);
  return {
    url: served.url,
    calls: () => records.flatMap((r) => (r.event === 'call' ? [r] : [])),
    records,
    close: served.close,
  };
}

/** One raw HTTP request, so that headers such as Host can be chosen freely. */
function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: options.method, headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('authority gateway over Streamable HTTP, in front of a Streamable HTTP upstream', () => {
  let service: Service;
  let upstream: Awaited<ReturnType<typeof startHttpUpstream>>;
  let gateway: HttpGateway;
  const files = scratch();

  before(async () => {
    service = await startService();
    upstream = await startHttpUpstream();
    gateway = await startHttpGateway(
      {
        serviceUrl: service.base,
        agentKey: service.agentKey,
        upstream: { url: upstream.url },
        config: { targetSystem: 'acme/mcp-tools', tools: { 'secret_*': { hidden: true } } },
      },
      files.dir,
    );
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
    await service?.close();
    files.dispose();
  });

  it('listens at http://HOST:PORT/mcp and connects to the upstream without client capabilities', async () => {
    assert.match(gateway.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const initialized = upstream.records.find((r) => r.event === 'initialized');
    assert.ok(initialized);
    assert.deepEqual(initialized.capabilities, {});
  });

  it('gives each agent session its own actor, and decides each call on it', async () => {
    const alice = await gateway.connect('agent-alice');
    const bob = await gateway.connect('agent-bob');
    const path = `notes/${randomUUID()}.txt`;
    const forAlice = (await alice.callTool({ name: 'write_file', arguments: { path } })) as CallToolResult;
    const forBob = (await bob.callTool({ name: 'write_file', arguments: { path } })) as CallToolResult;
    const intentOf = (result: CallToolResult) => String(decisionOf(result).intentId);
    assert.notEqual(
      intentOf(forAlice),
      intentOf(forBob),
      'the same call by another agent is another escalation',
    );
    assert.equal((await service.owner.getIntent(intentOf(forAlice))).request.actor.id, 'mcp:agent-alice');
    assert.equal((await service.owner.getIntent(intentOf(forBob))).request.actor.id, 'mcp:agent-bob');

    await service.approver.decideApproval({
      intentId: intentOf(forAlice),
      decision: 'approve',
      rationale: RATIONALE,
    });
    assert.match(
      textOf((await bob.callTool({ name: 'write_file', arguments: { path } })) as CallToolResult),
      /^ESCALATED/,
    );
    assert.equal(
      textOf((await alice.callTool({ name: 'write_file', arguments: { path } })) as CallToolResult),
      `wrote 0 characters to ${path}`,
    );
    assert.equal(upstream.calls().filter((c) => c.arguments?.path === path).length, 1);

    const { tools } = await alice.listTools();
    assert.ok(!tools.some((tool) => tool.name === 'secret_admin'));
    assert.deepEqual(
      upstream.calls().filter((c) => c.name === 'frobnicate'),
      [],
    );
    assert.match(
      textOf((await bob.callTool({ name: 'frobnicate', arguments: {} })) as CallToolResult),
      /^DENIED by signal:default/,
    );
    assert.deepEqual(
      upstream.calls().filter((c) => c.name === 'frobnicate'),
      [],
    );
  });

  it('answers requests for another Host, another Origin or another path without reaching the MCP server', async () => {
    const port = new URL(gateway.url).port;
    const wrongHost = await rawRequest(gateway.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, host: `attacker.example:${port}` },
      body: INITIALIZE,
    });
    assert.equal(wrongHost.status, 403);
    assert.match(wrongHost.body, /Invalid Host/);
    const wrongOrigin = await rawRequest(gateway.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'https://attacker.example' },
      body: INITIALIZE,
    });
    assert.equal(wrongOrigin.status, 403);
    assert.match(wrongOrigin.body, /Invalid Origin/);
    const wrongPath = await rawRequest(gateway.url.replace(/\/mcp$/, '/other'), {
      method: 'POST',
      headers: MCP_HEADERS,
      body: INITIALIZE,
    });
    assert.equal(wrongPath.status, 404);
    const unknownSession = await rawRequest(gateway.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': randomUUID() },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(unknownSession.status, 404);
    const notInitialize = await rawRequest(gateway.url, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(notInitialize.status, 400);
    const localOrigin = await rawRequest(gateway.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: `http://localhost:${port}` },
      body: INITIALIZE,
    });
    assert.equal(localOrigin.status, 200);
  });
});
