import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectUpstream } from '../../src/gateway/upstream.js';

/** An upstream over Streamable HTTP whose `tools/list` pages follow `nextCursorOf`. */
async function pagingUpstream(nextCursorOf: (cursor: string | undefined) => string | undefined) {
  let pages = 0;
  const server = new Server({ name: 'paging', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    pages += 1;
    const next = nextCursorOf(request.params?.cursor);
    return {
      tools: [{ name: `tool_${pages}`, inputSchema: { type: 'object' as const } }],
      ...(next === undefined ? {} : { nextCursor: next }),
    };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
  await server.connect(transport);
  const httpServer = http.createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    pages: () => pages,
    async close() {
      await server.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

describe('the upstream tool list', () => {
  it('reads every page of a list that ends', async () => {
    const upstream = await pagingUpstream((cursor) =>
      cursor === undefined ? 'a' : cursor === 'a' ? 'b' : undefined,
    );
    const connected = await connectUpstream({ kind: 'url', url: upstream.url }, {});
    try {
      assert.deepEqual(
        (await connected.tools()).map((tool) => tool.name),
        ['tool_1', 'tool_2', 'tool_3'],
      );
    } finally {
      await connected.close();
      await upstream.close();
    }
  });

  it('fails a list whose cursors go round instead of asking forever', async () => {
    const upstream = await pagingUpstream(() => '0');
    const connected = await connectUpstream({ kind: 'url', url: upstream.url }, {});
    try {
      await assert.rejects(connected.tools(), /tools\/list did not end: cursor "0" after 2 pages/);
      assert.equal(upstream.pages(), 2);
    } finally {
      await connected.close();
      await upstream.close();
    }
  });

  it('fails a list that never ends once it has read 1,001 pages', async () => {
    const upstream = await pagingUpstream((cursor) => String(Number(cursor ?? 0) + 1));
    const connected = await connectUpstream({ kind: 'url', url: upstream.url }, {});
    try {
      await assert.rejects(connected.tools(), /did not end: cursor "1001" after 1001 pages/);
    } finally {
      await connected.close();
      await upstream.close();
    }
  });
});
