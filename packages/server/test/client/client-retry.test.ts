import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AuthorityApiError, AuthorityClient, type AuthorityClientOptions } from '@authority-runtime/sdk';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type FaultAction, type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';

const read = (actorId: string, extra: Record<string, unknown> = {}) => ({
  actor: { id: actorId, type: 'agent' as const },
  targetSystem: 'acme/payments',
  proposedAction: 'list open pull requests',
  riskContext: { baseRiskScore: 10 },
  ...extra,
});

const envelope = (status: number, code: string, headers?: Record<string, string>): FaultAction => ({
  status,
  body: { error: { code, message: code, requestId: 'proxy' } },
  ...(headers ? { headers } : {}),
});

/** The error a call throws (the test fails if it resolves). */
async function failure(call: Promise<unknown>): Promise<AuthorityApiError> {
  const outcome = await call.then(
    (value) => assert.fail(`resolved with ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
  assert.ok(outcome instanceof AuthorityApiError, String(outcome));
  return outcome;
}

/** The retry policy of contract §13.1, against a real service behind a proxy that fails on purpose. */
describe('AuthorityClient retry policy', () => {
  let t: TestApp;
  let proxy: FaultProxy;
  let agentKey: string;
  let auditorKey: string;
  let ownerKey: string;
  const client = (apiKey = agentKey, extra: Partial<AuthorityClientOptions> = {}) =>
    new AuthorityClient({
      baseUrl: proxy.url,
      tenantId: 'acme',
      apiKey,
      timeoutMs: 2_000,
      backoff: { baseDelayMs: 5, maxDelayMs: 20 },
      ...extra,
    });
  /** How many requests the proxy received while `work` ran. */
  async function counted<T>(work: () => Promise<T>): Promise<{ value: T; requests: number }> {
    const from = proxy.requests.length;
    const value = await work();
    return { value, requests: proxy.requests.length - from };
  }

  before(async () => {
    t = await createTestApp('sqlite');
    ownerKey = (await t.createTenant('acme')).ownerKey.key;
    agentKey = (await t.services.apiKeys.create('acme', { name: 'agent', role: 'agent' }, null)).key;
    auditorKey = (await t.services.apiKeys.create('acme', { name: 'auditor', role: 'auditor' }, null)).key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    proxy = await startFaultProxy(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
  });
  after(async () => {
    await proxy.close();
    await t.close();
  });

  it('does not retry 400, 401, 403, 404 and 409, and gives DENIED as a result after one request', async () => {
    const bad = { ...read('terminal'), targetSystem: 'not a repository' };
    const cases: Array<[string, () => Promise<unknown>, number]> = [
      ['400', () => client().submitIntent(bad), 400],
      [
        '401',
        () => client('service_live_0000000000000000000000000000000000000000000').submitIntent(read('x')),
        401,
      ],
      ['403', () => client(auditorKey).submitIntent(read('terminal')), 403],
      ['404', () => client().getIntent('00000000-0000-7000-8000-000000000000'), 404],
    ];
    for (const [name, call, status] of cases) {
      const { value: error, requests } = await counted(() => failure(call()));
      assert.equal(error.status, status, name);
      assert.equal(error.retryable, false, name);
      assert.equal(requests, 1, `${name} is terminal`);
    }
    const key = 'conflict-key';
    await client().submitIntent(read('terminal'), { idempotencyKey: key });
    const conflict = await counted(() =>
      failure(client().submitIntent(read('terminal-other'), { idempotencyKey: key })),
    );
    assert.equal(conflict.value.status, 409);
    assert.equal(conflict.value.code, 'CONFLICT');
    assert.equal(conflict.requests, 1);

    const denied = await counted(() =>
      client().submitIntent(read('denied', { riskContext: { baseRiskScore: 10, touchesProduction: true } })),
    );
    assert.equal(denied.value.outcome, 'DENIED');
    assert.equal(denied.value.token, undefined);
    assert.equal(denied.requests, 1);
    assert.equal(denied.value.response.authorityDecision.gateTrace.at(-1), 'default');
  });

  it('retries 500, 502, 503 and 504 up to maxAttempts and reports the last one', async () => {
    proxy.plan(
      envelope(500, 'INTERNAL_ERROR'),
      envelope(502, 'BAD_GATEWAY'),
      envelope(504, 'GATEWAY_TIMEOUT'),
    );
    const recovered = await counted(() => client().submitIntent(read('flaky')));
    assert.equal(recovered.value.outcome, 'APPROVED');
    assert.equal(recovered.requests, 4);

    proxy.plan(...Array.from({ length: 3 }, () => envelope(503, 'SERVICE_UNAVAILABLE')));
    const exhausted = await counted(() => failure(client(agentKey, { maxAttempts: 3 }).getIntent('x')));
    assert.equal(exhausted.requests, 3);
    assert.equal(exhausted.value.status, 503);
    assert.equal(exhausted.value.code, 'SERVICE_UNAVAILABLE');
    assert.equal(exhausted.value.retryable, true);
  });

  it('honours retry-after on 429, and gives up when the wait asked for is too long', async () => {
    const { intentId } = await client().submitIntent(read('rl'));
    proxy.plan(envelope(429, 'RATE_LIMITED', { 'retry-after': '0' }));
    const retried = await counted(() => client().intents.get(intentId));
    assert.equal(retried.requests, 2, 'the 429 and the retry');
    assert.equal(retried.value.intentId, intentId);
    proxy.plan(envelope(429, 'RATE_LIMITED', { 'retry-after': '3600' }));
    const refused = await counted(() => failure(client().tenant.get()));
    assert.equal(refused.requests, 1, 'an hour is not waited for');
    assert.equal(refused.value.code, 'RATE_LIMITED');
    assert.equal(refused.value.retryable, true);
    assert.equal(refused.value.retryAfterMs, 3_600_000, 'the wait asked for, for the caller to honour');
  });

  it('repeats a call that would act twice (an API key) only when the answer proves it was not processed', async () => {
    const owner = client(ownerKey);
    proxy.plan(envelope(503, 'SERVICE_UNAVAILABLE'));
    const unavailable = await counted(() => failure(owner.keys.createApiKey({ name: 'k1', role: 'agent' })));
    assert.equal(unavailable.requests, 1, 'a 503 may come after the key was made: not repeated');
    proxy.plan('reset');
    const reset = await counted(() => failure(owner.keys.createApiKey({ name: 'k2', role: 'agent' })));
    assert.equal(reset.requests, 1);
    assert.equal(reset.value.code, 'NETWORK_ERROR');
    proxy.plan(envelope(429, 'RATE_LIMITED', { 'retry-after': '0' }));
    const limited = await counted(() => owner.keys.createApiKey({ name: 'k3', role: 'agent' }));
    assert.equal(limited.requests, 2, 'a 429 was refused before any work: repeated');
    assert.match(limited.value.key, /^service_live_/);
  });

  it('retries a connection reset and an attempt that times out, then reports TIMEOUT with status 0', async () => {
    proxy.plan('reset');
    const reset = await counted(() => client().tenant.get());
    assert.equal(reset.requests, 2);
    proxy.plan('hang', 'hang', 'hang');
    const timedOut = await counted(() =>
      failure(client(agentKey, { timeoutMs: 150, maxAttempts: 3 }).tenant.get()),
    );
    assert.equal(timedOut.requests, 3);
    assert.equal(timedOut.value.status, 0);
    assert.equal(timedOut.value.code, 'TIMEOUT');
    assert.equal(timedOut.value.retryable, true);
  });

  it('waits for a review until the timeout, and stops when the signal aborts', async () => {
    const escalated = await client().submitIntent(
      read('waiting', { proposedAction: 'merge pull request 7' }),
    );
    assert.equal(escalated.outcome, 'ESCALATED');
    const polls = await counted(() =>
      client().waitForApproval(escalated.intentId, { timeoutMs: 600, pollIntervalMs: 20 }),
    );
    assert.equal(polls.value, 'ESCALATED', 'still pending when the time is up');
    // Without its timeout (from JavaScript), the wait says what it needs.
    const untyped = client() as unknown as {
      waitForApproval(id: string, options?: unknown): Promise<unknown>;
    };
    for (const options of [undefined, {}, { timeoutMs: -1 }, { timeoutMs: Number.NaN }]) {
      await assert.rejects(untyped.waitForApproval(escalated.intentId, options), {
        name: 'TypeError',
        message: 'waitForApproval: options.timeoutMs (milliseconds, >= 0) is required',
      });
    }
    assert.ok(polls.requests >= 2, 'it polled');
    // Another intent: a read the first wait cut off at its deadline may still reach the proxy now.
    const other = await client().submitIntent(read('waiting', { proposedAction: 'merge pull request 9' }));
    assert.equal(other.outcome, 'ESCALATED');
    const polled = () => proxy.requests.filter((r) => r.url.includes(other.intentId)).length;
    const stop = new AbortController();
    const waiting = failure(
      client().waitForApproval(other.intentId, {
        timeoutMs: 60_000,
        pollIntervalMs: 30_000,
        signal: stop.signal,
      }),
    );
    while (polled() === 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the poll answered; the wait between polls began
    stop.abort();
    assert.equal((await waiting).code, 'ABORTED');
    assert.equal(polled(), 1, 'no poll after the abort');
  });

  it('answers ESCALATED at the wait timeout while the service does not answer, its retries included', async () => {
    const escalated = await client().submitIntent(
      read('hanging', { proposedAction: 'merge pull request 8' }),
    );
    assert.equal(escalated.outcome, 'ESCALATED');
    proxy.plan('hang', 'hang', 'hang', 'hang');
    const started = Date.now();
    const status = await client(agentKey, { timeoutMs: 1_000, maxAttempts: 4 }).waitForApproval(
      escalated.intentId,
      { timeoutMs: 300, pollIntervalMs: 50 },
    );
    const took = Date.now() - started;
    proxy.plan();
    assert.equal(status, 'ESCALATED');
    assert.ok(took < 2_000, `answered after ${took} ms, not after 4 attempts of 1 s`);
  });

  it('reports NETWORK_ERROR with status 0 when nothing listens', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(
      new AuthorityClient({
        baseUrl: `http://127.0.0.1:${port}`,
        tenantId: 'acme',
        apiKey: agentKey,
        backoff: { baseDelayMs: 1, maxDelayMs: 5 },
      }).submitIntent(read('nowhere')),
    );
    assert.equal(error.status, 0);
    assert.equal(error.code, 'NETWORK_ERROR');
  });

  it('stops at once when the signal aborts, during an attempt or a backoff', async () => {
    proxy.plan('hang');
    const during = new AbortController();
    const pending = failure(client().submitIntent(read('abort'), { signal: during.signal }));
    while (proxy.requests.at(-1)?.action !== 'hang') await new Promise((resolve) => setImmediate(resolve));
    during.abort();
    const first = await counted(() => pending);
    assert.equal(first.value.code, 'ABORTED');
    assert.equal(first.value.status, 0);

    proxy.plan(envelope(503, 'SERVICE_UNAVAILABLE'));
    const backoff = client(agentKey, { backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const waiting = new AbortController();
    const from = proxy.requests.length;
    const aborted = failure(backoff.tenant.get({ signal: waiting.signal }));
    while (proxy.requests.length === from) await new Promise((resolve) => setImmediate(resolve));
    waiting.abort();
    assert.equal((await aborted).code, 'ABORTED');
    assert.equal(proxy.requests.length - from, 1, 'no retry after the abort');

    const timed = await failure(
      client().tenant.get({ signal: AbortSignal.abort(new DOMException('t', 'TimeoutError')) }),
    );
    assert.equal(timed.code, 'TIMEOUT', 'AbortSignal.timeout reads as a timeout');
  });
});
