import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  createEgressClient,
  EgressTimeoutError,
  MAX_RESPONSE_BYTES,
} from '../../src/egress/egress-client.js';

/**
 * What the outbound client makes of an answer: a receiver that answered 2xx did receive the call,
 * however long its body, so the status stands and only the first MiB is read (webhooks count the
 * delivery as done, the http connector as executed).
 */
describe('answers read by the egress client', () => {
  let server: http.Server;
  let base: string;
  const client = createEgressClient({ allowPrivate: true, allowCidrs: [] });

  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/echo-headers') {
        const body: Buffer[] = [];
        req.on('data', (chunk: Buffer) => body.push(chunk));
        req.on('end', () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ headers: req.headers, body: Buffer.concat(body).toString('utf8') })),
        );
        return;
      }
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('bytes'));
      if (req.url === '/trickle' || req.url === '/silent') {
        // The status and headers at once (or nothing at all), then a byte every 50 ms.
        if (req.url === '/silent') return;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{');
        const timer = setInterval(() => res.write('x'), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (req.url?.startsWith('/endless')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const write = () => {
          while (res.write(chunk)) if (res.destroyed) return;
          res.once('drain', write);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        write();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.alloc(size, 'y'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const get = (path: string) => client.request({ method: 'GET', url: `${base}${path}`, timeoutMs: 5_000 });

  it('sends a body with its Content-Length, never chunked (receivers that read only that get it)', async () => {
    const body = '{"note":"old 0\\n… ünïcode"}';
    const answer = await client.request({
      method: 'POST',
      url: `${base}/echo-headers`,
      body,
      timeoutMs: 5_000,
    });
    const seen = JSON.parse(answer.body) as { headers: Record<string, string>; body: string };
    assert.equal(seen.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(seen.headers['transfer-encoding'], undefined);
    assert.equal(seen.body, body);
  });

  it('keeps the status of an answer whose body is still arriving at the deadline; no status is a timeout', async () => {
    const started = Date.now();
    const slow = await client.request({ method: 'POST', url: `${base}/trickle`, body: '{}', timeoutMs: 400 });
    assert.deepEqual([slow.status, slow.truncated], [200, true]);
    assert.ok(slow.body.startsWith('{'), slow.body);
    assert.ok(Date.now() - started < 2_000, 'answered at the deadline');
    await assert.rejects(
      client.request({ method: 'POST', url: `${base}/silent`, body: '{}', timeoutMs: 300 }),
      EgressTimeoutError,
    );
  });

  it('reads a body up to 1 MiB whole', async () => {
    for (const bytes of [0, 1_000, MAX_RESPONSE_BYTES]) {
      const answer = await get(`/sized?bytes=${bytes}`);
      assert.deepEqual([answer.status, answer.body.length, answer.truncated], [200, bytes, false]);
    }
  });

  it('keeps the status of a longer answer and its first MiB, without reading the rest', async () => {
    const long = await get(`/sized?bytes=${MAX_RESPONSE_BYTES * 2 + 7}`);
    assert.deepEqual([long.status, long.body.length, long.truncated], [200, MAX_RESPONSE_BYTES, true]);
    const endless = await get('/endless');
    assert.deepEqual(
      [endless.status, endless.body.length, endless.truncated],
      [200, MAX_RESPONSE_BYTES, true],
    );
  });
});
