import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  callLog,
  connectStdio,
  EVERYTHING,
  type HttpGateway,
  type Service,
  type StdioGateway,
  scratch,
  startHttpGateway,
  startService,
  textOf,
} from './gateway-harness.js';

/**
 * The published reference server `@modelcontextprotocol/server-everything` behind the gateway, with
 * the tenant policy of the worked example (`mcp-basics`, lowConfidenceEscalateBelow 0.3): every
 * tool is listed as the server lists it, and `echo` is approved and answered as the server answers.
 */

async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

describe('authority gateway in front of @modelcontextprotocol/server-everything', () => {
  let service: Service;
  let direct: Client;
  let directTools: Tool[];
  let directEcho: CallToolResult;
  let viaStdio: StdioGateway;
  let viaHttp: HttpGateway;
  let httpClient: Client;
  const files = scratch();
  const upstream = { command: [process.execPath, EVERYTHING, 'stdio'] };

  before(async () => {
    service = await startService();
    // The reference: the same server, asked directly by a client that, like the gateway, declares no capabilities.
    direct = new Client({ name: 'direct', version: '1.0.0' }, { capabilities: {} });
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
    );
    directTools = await listAll(direct);
    directEcho = (await direct.callTool({
      name: 'echo',
      arguments: { message: 'hello through the gateway' },
    })) as CallToolResult;
    const options = { serviceUrl: service.base, agentKey: service.agentKey, upstream };
    viaStdio = await connectStdio(options, files.dir);
    viaHttp = await startHttpGateway(options, files.dir);
    httpClient = await viaHttp.connect();
  });
  after(async () => {
    await direct?.close();
    await viaStdio?.close();
    await viaHttp?.close();
    await service?.close();
    files.dispose();
  });

  const agents = () =>
    [
      ['stdio', viaStdio.client],
      ['Streamable HTTP', httpClient],
    ] as const;

  it('the reference server has tools to compare', () => {
    assert.ok(directTools.length >= 10, directTools.map((t) => t.name).join(', '));
    assert.ok(directTools.some((tool) => tool.name === 'echo'));
    assert.equal(textOf(directEcho), 'Echo: hello through the gateway');
  });

  it('lists every tool of the reference server, as the server lists them', async () => {
    for (const [transport, client] of agents()) {
      assert.deepEqual(await listAll(client), directTools, transport);
      assert.equal(client.getServerVersion()?.name, 'authority-gateway', transport);
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(Object.keys(capabilities ?? {}), ['tools'], transport);
    }
  });

  it('approves echo and returns the server answer unchanged', async () => {
    const before = callLog(viaStdio.stderr()).length;
    for (const [transport, client] of agents()) {
      const result = await client.callTool({
        name: 'echo',
        arguments: { message: 'hello through the gateway' },
      });
      assert.deepEqual(result, directEcho, transport);
    }
    assert.deepEqual(
      (await viaStdio.callLogOf(before + 1))
        .filter((line) => line.tool === 'echo')
        .map((line) => line.decision),
      ['APPROVED'],
    );
  });

  it('runs the server without the gateway credentials in its environment', async () => {
    const result = (await viaStdio.client.callTool({ name: 'get-env', arguments: {} })) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    const env = JSON.parse(textOf(result)) as Record<string, string>;
    assert.ok(Object.keys(env).length > 0);
    assert.deepEqual(
      Object.keys(env).filter((name) => name.toUpperCase().startsWith('AUTHORITY_')),
      [],
    );
    assert.ok(!textOf(result).includes(service.agentKey));
  });

  it('refuses what the policy does not allow', async () => {
    for (const [transport, client] of agents()) {
      const denied = (await client.callTool({
        name: 'toggle-simulated-logging',
        arguments: {},
      })) as CallToolResult;
      assert.equal(denied.isError, true, transport);
      assert.match(textOf(denied), /^DENIED by signal:default: /, transport);
    }
  });
});
