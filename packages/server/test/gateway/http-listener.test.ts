import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { listenStreamableHttp } from '../../src/gateway/http-listener.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});

/** A POST of `initialize` to the listener with the given Host and Origin headers. */
async function initializeWith(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

describe('gateway --listen on a loopback address', () => {
  for (const host of ['127.0.0.2', '127.1.2.3']) {
    it(`checks Host and Origin on ${host} as on 127.0.0.1: all of 127.0.0.0/8 is the loopback`, async () => {
      const listener = await listenStreamableHttp({
        host,
        port: 0,
        createServer: () => new Server({ name: 'probe', version: '1' }, { capabilities: { tools: {} } }),
      });
      try {
        const port = new URL(listener.url).port;
        assert.equal(await initializeWith(listener.url, { host: `evil.example:${port}` }), 403);
        assert.equal(await initializeWith(listener.url, { origin: 'http://evil.example' }), 403);
        assert.equal(await initializeWith(listener.url, { origin: `http://${host}:${port}` }), 200);
        assert.equal(await initializeWith(listener.url, { host: `localhost:${port}` }), 200);
      } finally {
        await listener.close();
      }
    });
  }
});
