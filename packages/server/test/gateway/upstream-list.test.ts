import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectUpstream } from '../../src/gateway/upstream.js';
import { serveOverHttp } from './gateway-harness.js';

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
  const served = await serveOverHttp(server);
  return { url: new URL(served.url), pages: () => pages, close: served.close };
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
