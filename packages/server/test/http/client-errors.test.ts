import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

/**
 * What Node's HTTP parser refuses before routing still gets the envelope of contract §1 and an
 * `x-request-id` (Fastify's default answered `{"error","message","statusCode"}` without one).
 */
describe('requests the HTTP parser refuses', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  after(async () => {
    await t.close();
  });

  const cases: Array<[string, string, number, string]> = [
    ['a garbage request line', 'NOT HTTP AT ALL\r\n\r\n', 400, 'VALIDATION_ERROR'],
    ['an unknown method', 'BREW /health HTTP/1.1\r\nhost: x\r\n\r\n', 400, 'VALIDATION_ERROR'],
    [
      'a malformed content-length',
      'GET /health HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n',
      400,
      'VALIDATION_ERROR',
    ],
    [
      'headers over the size limit',
      `GET /tenant HTTP/1.1\r\nhost: x\r\nx-foo: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'PAYLOAD_TOO_LARGE',
    ],
  ];
  for (const [name, bytes, status, code] of cases) {
    it(`${name}: ${status} ${code} in the envelope, with its request id`, async () => {
      const answer = parse(await exchange(port, bytes));
      assert.equal(answer.status, status);
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
      const requestId = answer.headers['x-request-id'];
      assert.match(requestId ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(answer.body.error.code, code);
      assert.equal(answer.body.error.requestId, requestId);
      assert.equal(typeof answer.body.error.message, 'string');
      if (code === 'VALIDATION_ERROR') assert.ok(answer.body.error.details.issues.length > 0);
    });
  }

  it('still answers well-formed requests on new connections', async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(answer.status, 200);
  });
});

/**
 * A credential header sent twice is refused (contract §2: one credential per request), although
 * Node's parser keeps only the first `Authorization` and joins repeated custom headers: with an
 * owner key first and an agent key second, the request must not run as the owner.
 */
describe('credential headers sent more than once', () => {
  let t: TestApp;
  let port: number;
  let owner: string;
  let agent: string;
  before(async () => {
    t = await createTestApp('sqlite');
    owner = (await t.createTenant('acme', 'enterprise')).ownerKey.key;
    agent = (await t.services.apiKeys.create('acme', { name: 'bot', role: 'agent' }, null)).key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  after(async () => {
    await t.close();
  });

  const request = (headerLines: string[]) =>
    exchange(
      port,
      `GET /keys HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-tenant-id: acme\r\n${headerLines.join('\r\n')}\r\n\r\n`,
    ).then(parse);

  it('one Authorization header authenticates (the control)', async () => {
    assert.equal((await request([`authorization: Bearer ${owner}`])).status, 200);
    assert.equal((await request([`x-api-key: ${owner}`])).status, 200);
  });

  const twice: Array<[string, () => string[]]> = [
    [
      'Authorization with two keys',
      () => [`authorization: Bearer ${owner}`, `Authorization: Bearer ${agent}`],
    ],
    [
      'Authorization with the same key',
      () => [`authorization: Bearer ${owner}`, `authorization: Bearer ${owner}`],
    ],
    ['x-api-key with two keys', () => [`x-api-key: ${owner}`, `X-API-Key: ${agent}`]],
    ['x-portal-session-id', () => [`x-portal-session-id: ps_a`, `x-portal-session-id: ps_b`]],
  ];
  for (const [name, lines] of twice) {
    it(`${name}: 401 UNAUTHORIZED conflicting_credentials`, async () => {
      const answer = await request(lines());
      assert.equal(answer.status, 401, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, 'UNAUTHORIZED');
      assert.equal(answer.body.error.details.reason, 'conflicting_credentials');
    });
  }
});
