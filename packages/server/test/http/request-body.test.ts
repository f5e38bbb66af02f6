import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { logCapture } from '../helpers/output.js';

interface Answer {
  status: number;
  body: { error?: { code: string; message: string }; [member: string]: unknown };
}

/**
 * Bodies as a client's bytes reach the socket (contract §1): chunked and empty, compressed,
 * declared in another charset, or not UTF-8 at all.
 */
describe('request bodies on the wire', () => {
  let t: TestApp;
  let port: number;
  let owner: Headers;

  const { stream, lines: logLines } = logCapture();
  before(async () => {
    t = await createTestApp('sqlite', {}, undefined, { logger: { level: 'info', stream } });
    owner = await t.ownerHeaders('acme');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  after(async () => {
    await t.close();
  });

  /** One request; `chunks` are written as they are (none: an empty chunked body unless `length`). */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    chunks: Buffer[],
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text === '' ? {} : JSON.parse(text) });
        });
      });
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const intentCount = async () => (await t.storage.db.selectFrom('intents').select('id').execute()).length;

  it('takes an empty chunked body without a content type on the POST routes that take no body', async () => {
    const res = await send('POST', '/authority/keys/rotate', { ...owner, 'transfer-encoding': 'chunked' }, [
      Buffer.alloc(0),
    ]);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const verify = await send(
      'POST',
      '/audit/verify-chain',
      { ...owner, 'transfer-encoding': 'chunked' },
      [],
    );
    assert.equal(verify.status, 200, JSON.stringify(verify.body));
    assert.equal(verify.body.valid, true);
  });

  it('refuses bytes without a content type, and any media type but JSON, with 415', async () => {
    const cases: Array<[Record<string, string>, Buffer[]]> = [
      [{ 'transfer-encoding': 'chunked' }, [json({})]],
      [{ 'content-type': 'text/plain' }, [json({})]],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, [Buffer.from('a=b')]],
    ];
    for (const [headers, chunks] of cases) {
      const res = await send('POST', '/audit/verify-chain', { ...owner, ...headers }, chunks);
      assert.equal(res.status, 415, JSON.stringify(headers));
      assert.equal(res.body.error?.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('refuses a content coding with 415 naming it, on both surfaces', async () => {
    const intent = await send(
      'POST',
      '/intent',
      { ...owner, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      [json(intentPayload('list open pull requests'))],
    );
    assert.equal(intent.status, 415, JSON.stringify(intent.body));
    assert.equal(intent.body.error?.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(intent.body.error?.message ?? '', /Content-Encoding "gzip" is not supported/);
    const physical = await send(
      'POST',
      '/v1/physical/classify',
      { ...owner, 'content-type': 'application/json', 'content-encoding': 'br' },
      [json({ goal: 'move the pallet' })],
    );
    assert.equal(physical.status, 415, JSON.stringify(physical.body));
    assert.equal(physical.body.error?.code, 'unsupported_media_type');
    const identity = await send(
      'POST',
      '/intent',
      { ...owner, 'content-type': 'application/json', 'content-encoding': 'identity' },
      [json(intentPayload('list open pull requests'))],
    );
    assert.equal(identity.status, 200, JSON.stringify(identity.body));
  });

  it('logs a client that hangs up mid-body at info, not as a failure of the service', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const head = [
      'POST /intent HTTP/1.1',
      'host: 127.0.0.1',
      `authorization: ${owner.authorization}`,
      'x-tenant-id: acme',
      'content-type: application/json',
      'content-length: 100',
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n{"te`);
    await sleep(100);
    socket.destroy();
    for (let i = 0; i < 50 && !logLines.some((l) => l.msg.includes('closed the request')); i += 1)
      await sleep(20);
    assert.ok(
      logLines.some(
        (l) => l.level === 30 && l.msg === 'the client closed the request before its body arrived',
      ),
      JSON.stringify(logLines.slice(-3)),
    );
    assert.deepEqual(
      logLines.filter((l) => l.level >= 40),
      [],
      'no warning or error for a client that went away',
    );
  });

  it('logs the query parameters a client sends by name, never their values', async () => {
    const key = 'service_live_QUERYSTRINGSECRETQUERYSTRINGSECRET0123456789';
    const res = await send('GET', `/tenant?api_key=${key}&x=1`, owner, []);
    assert.equal(res.status, 200);
    const incoming = logLines.filter((l) => l.msg === 'incoming request').at(-1);
    assert.deepEqual(
      (incoming?.req as { url?: string } | undefined)?.url,
      '/tenant?api_key=[redacted]&x=[redacted]',
    );
    assert.ok(!JSON.stringify(logLines).includes(key));
    // The path as received, the `/v1` prefix included.
    assert.equal((await send('GET', '/v1/tenant?x=1', owner, [])).status, 200);
    const versioned = logLines.filter((l) => l.msg === 'incoming request').at(-1);
    assert.equal((versioned?.req as { url?: string } | undefined)?.url, '/v1/tenant?x=[redacted]');
  });

  it('takes JSON in UTF-8 only: another charset is 415, bytes that are not UTF-8 are 400 and stored nowhere', async () => {
    for (const charset of ['latin1', 'utf-16', 'iso-8859-1']) {
      const res = await send(
        'POST',
        '/intent',
        { ...owner, 'content-type': `application/json; charset=${charset}` },
        [json(intentPayload('list open pull requests'))],
      );
      assert.equal(res.status, 415, charset);
      assert.match(res.body.error?.message ?? '', /UTF-8/);
    }
    for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
      const res = await send('POST', '/intent', { ...owner, 'content-type': contentType }, [
        json(intentPayload('list open pull requests')),
      ]);
      assert.equal(res.status, 200, contentType);
    }
    const withBom = await send('POST', '/intent', { ...owner, 'content-type': 'application/json' }, [
      Buffer.from([0xef, 0xbb, 0xbf]),
      json(intentPayload('list open pull requests')),
    ]);
    assert.equal(withBom.status, 200, JSON.stringify(withBom.body));

    const before = await intentCount();
    const text = JSON.stringify({
      ...intentPayload('list open pull requests'),
      actor: { id: 'caf@', type: 'agent' },
    });
    const at = text.indexOf('caf@') + 3;
    for (const bad of [[0xe9], [0xc3], [0xed, 0xa0, 0x80], [0xff]]) {
      const bytes = Buffer.concat([
        Buffer.from(text.slice(0, at)),
        Buffer.from(bad),
        Buffer.from(text.slice(at + 1)),
      ]);
      const res = await send('POST', '/intent', { ...owner, 'content-type': 'application/json' }, [bytes]);
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.error?.code, 'VALIDATION_ERROR');
      assert.equal(res.body.error?.message, 'The request body is not valid UTF-8');
    }
    assert.equal(await intentCount(), before, 'no intent was recorded from a body that is not UTF-8');
  });
});
