import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { describe, it } from 'node:test';
import { PUBLIC } from '../../src/http/access.js';
import { createTestApp } from '../helpers/app.js';
import { logCapture } from '../helpers/output.js';

describe('a server that is shutting down', () => {
  it('finishes the request in flight and answers the next one on its connection 503 in the envelope', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const log = logCapture();
    const t = await createTestApp(
      'sqlite',
      {},
      (app) => {
        app.get('/test/slow', { config: { access: PUBLIC } }, async () => {
          entered();
          await held;
          return { done: true };
        });
      },
      { logger: { level: 'info', stream: log.stream } },
    );
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;

    // The slow request keeps the connection busy, so closing the server does not drop it; a
    // second request on it arrives while the server is closing.
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /test/slow HTTP/1.1\r\nhost: localhost\r\n\r\n');
    await inside;
    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('GET /v1/physical/actors HTTP/1.1\r\nhost: localhost\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await ended;
    await closing;

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, received);
    assert.match(responses[0] as string, /^HTTP\/1\.1 200/);
    assert.match(responses[0] as string, /\{"done":true\}/);
    assert.match(responses[1] as string, /^HTTP\/1\.1 503/);
    assert.match(responses[1] as string, /x-request-id: \S+/i);
    const body = JSON.parse((responses[1] as string).slice((responses[1] as string).indexOf('{')));
    assert.equal(body.error.code, 'service_unavailable', 'lower-snake under /v1/physical, in the envelope');
    assert.ok(body.error.requestId);
    // The drain is logged once at its start and end; its 503s are expected, not failures.
    const messages = log.lines.map((line) => line.msg);
    assert.ok(messages.includes('shutting down: new requests get 503 while the requests in flight finish'));
    assert.ok(messages.some((msg) => msg.startsWith('drained')));
    assert.deepEqual(
      log.lines.filter((line) => line.level >= 50),
      [],
    );
  });

  it('answers 503 (connection: close) on an idle kept-alive connection reused during the drain, never a reset', async () => {
    const t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let reset = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    socket.on('error', () => {
      reset = true;
    });
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /health HTTP/1.1\r\nhost: localhost\r\n\r\n');
    while (!received.includes('"status":"ok"')) await new Promise((resolve) => setTimeout(resolve, 5));
    // The connection is idle and kept alive; the client reuses it just after shutdown began.
    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('GET /health HTTP/1.1\r\nhost: localhost\r\n\r\n');
    await ended;
    await closing;

    assert.equal(reset, false, 'the connection was reset');
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, received);
    assert.match(responses[0] as string, /^HTTP\/1\.1 200/);
    assert.match(responses[1] as string, /^HTTP\/1\.1 503/);
    assert.match(responses[1] as string, /connection: close/i);
    const body = JSON.parse((responses[1] as string).slice((responses[1] as string).indexOf('{')));
    assert.equal(body.error.code, 'SERVICE_UNAVAILABLE');
  });
});
