import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AuthorityApiError, AuthorityClient, staticJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { ENGINES } from '../helpers/storage.js';

const RATIONALE = 'Reviewed the change and the blast radius';
const UNAVAILABLE = {
  status: 503,
  body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'try later', requestId: 'proxy' } },
};

const read = (actorId: string, extra: Record<string, unknown> = {}) => ({
  actor: { id: actorId, type: 'agent' as const },
  targetSystem: 'acme/payments',
  proposedAction: 'list open pull requests',
  riskContext: { baseRiskScore: 10 },
  ...extra,
});

/**
 * A HashiCorp Vault transit `sign` endpoint with a real Ed25519 key that signs until told to fail,
 * then answers 500: the service's decisions then fail inside the authority loop.
 */
async function startSigner() {
  const pair = generateKeyPairSync('ed25519');
  let failing = false;
  let failures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (failing) {
        failures += 1;
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"errors":["sealed"]}');
        return;
      }
      const { input } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string };
      const signature = sign(null, Buffer.from(input, 'base64'), pair.privateKey).toString('base64url');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { signature: `vault:v1:${signature}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/transit/sign/authority`,
    publicJwk: pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
    fail: () => {
      failing = true;
    },
    failures: () => failures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const engine of ENGINES) {
  describe(`AuthorityClient against a service behind a failing proxy (${engine})`, () => {
    let t: TestApp;
    let proxy: FaultProxy;
    let agentKey: string;
    let approverKey: string;
    let ownerKey: string;
    const clientFor = (apiKey: string, tenantId = 'acme') =>
      new AuthorityClient({
        baseUrl: proxy.url,
        tenantId,
        apiKey,
        timeoutMs: 2_000,
        maxAttempts: 4,
        backoff: { baseDelayMs: 5, maxDelayMs: 20 },
      });
    const intentsOf = async (actorId: string) =>
      (await clientFor(ownerKey).intents.list({ actorId }).all()).map((i) => i.intentId);
    const keysOf = (from: number) =>
      new Set(proxy.requests.slice(from).map((r) => r.headers['idempotency-key']));

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      ownerKey = (await t.createTenant('acme')).ownerKey.key;
      agentKey = (await t.services.apiKeys.create('acme', { name: 'agent', role: 'agent' }, null)).key;
      approverKey = (await t.services.apiKeys.create('acme', { name: 'approver', role: 'approver' }, null))
        .key;
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address() as AddressInfo;
      proxy = await startFaultProxy(`http://127.0.0.1:${address.port}`);
    });
    after(async () => {
      await proxy.close();
      await t.close();
    });

    it('retries 503 twice with one Idempotency-Key and gets one decision, whose token verifies', async () => {
      const from = proxy.requests.length;
      proxy.plan(UNAVAILABLE, UNAVAILABLE);
      const result = await clientFor(agentKey).submitIntent(read('retry-503'));
      assert.equal(result.outcome, 'APPROVED');
      assert.equal(proxy.requests.length - from, 3, 'two failures and the success');
      assert.equal(keysOf(from).size, 1, 'every attempt carried the same key');
      assert.ok([...keysOf(from)][0] === result.idempotencyKey);
      assert.deepEqual(await intentsOf('retry-503'), [result.intentId], 'exactly one decision');
      const verified = await verifyAuthorityToken(result.token ?? '', {
        jwks: staticJwks(await clientFor(agentKey).keys.jwks()),
        expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/payments' },
        clock: t.clock,
      });
      assert.equal(verified.valid, true, JSON.stringify(verified));
    });

    it('gets the same decision when the reply to a committed submission is lost', async () => {
      const from = proxy.requests.length;
      proxy.plan('lose-reply');
      const result = await clientFor(agentKey).submitIntent(read('lost-reply'));
      assert.equal(result.outcome, 'APPROVED');
      assert.equal(proxy.requests.length - from, 2);
      assert.equal(keysOf(from).size, 1);
      assert.deepEqual(await intentsOf('lost-reply'), [result.intentId], 'the retry replayed the decision');
    });

    it('fetches the token of an approved escalation once, even when the reply is lost', async () => {
      const agent = clientFor(agentKey);
      const escalated = await agent.submitIntent(
        read('lost-token', { proposedAction: 'merge pull request 9' }),
      );
      assert.equal(escalated.outcome, 'ESCALATED');
      assert.equal(escalated.token, undefined);
      await clientFor(approverKey).decideApproval({
        intentId: escalated.intentId,
        decision: 'approve',
        rationale: RATIONALE,
      });
      assert.equal(
        await agent.waitForApproval(escalated.intentId, { timeoutMs: 5_000, pollIntervalMs: 20 }),
        'APPROVED_AFTER_REVIEW',
      );
      const from = proxy.requests.length;
      proxy.plan('lose-reply');
      const fetched = await agent.fetchToken(escalated.intentId);
      assert.equal(proxy.requests.length - from, 2);
      assert.equal(keysOf(from).size, 1);
      assert.equal(fetched.response.authorityDecision.decision, 'APPROVED');
      const again = await agent.fetchToken(escalated.intentId, { idempotencyKey: fetched.idempotencyKey });
      assert.equal(again.token, fetched.token, 'the same key replays the same token');
      const another = await agent.fetchToken(escalated.intentId).catch((error: unknown) => error);
      assert.ok(
        another instanceof AuthorityApiError && another.status === 409,
        'a new key gets no second token',
      );
    });

    it('waits out a service that is unavailable for longer than one read retries, until its deadline', async () => {
      const agent = clientFor(agentKey);
      const escalated = await agent.submitIntent(read('outage', { proposedAction: 'merge pull request 11' }));
      assert.equal(escalated.outcome, 'ESCALATED');
      await clientFor(approverKey).decideApproval({
        intentId: escalated.intentId,
        decision: 'approve',
        rationale: RATIONALE,
      });
      // Six 503s: the first read gives up after its four attempts; the wait polls again.
      const from = proxy.requests.length;
      proxy.plan(...Array.from({ length: 6 }, () => UNAVAILABLE));
      const status = await agent.waitForApproval(escalated.intentId, {
        timeoutMs: 5_000,
        pollIntervalMs: 20,
      });
      assert.equal(status, 'APPROVED_AFTER_REVIEW');
      assert.equal(proxy.requests.length - from, 7, 'six refused reads, then the one that answered');
      // An outage that outlasts the wait ends it with ESCALATED, not an error.
      proxy.plan(...Array.from({ length: 1_000 }, () => UNAVAILABLE));
      const started = Date.now();
      assert.equal(
        await agent.waitForApproval(escalated.intentId, { timeoutMs: 300, pollIntervalMs: 20 }),
        'ESCALATED',
      );
      assert.ok(Date.now() - started >= 300, 'waited until the deadline');
      proxy.plan();
      // A refusal still ends the wait at once.
      const missing = await agent
        .waitForApproval('0190f5c2-1111-7000-8000-0000000000ff', { timeoutMs: 5_000 })
        .catch((error: unknown) => error);
      assert.ok(missing instanceof AuthorityApiError && missing.status === 404);
    });

    it('gives AUTHORITY_LOOP_FAILED as an error after maxAttempts tries, never a token, nothing decided', async () => {
      const signer = await startSigner();
      try {
        const created = await t.createTenant('loopfail');
        const owner = clientFor(created.ownerKey.key, 'loopfail');
        await owner.keys.registerExternal({
          kid: `loopfail-${Math.floor(t.clock() / 1000)}-ABCDEFGH`,
          alg: 'EdDSA',
          publicJwk: signer.publicJwk,
          signUrl: signer.url,
        });
        signer.fail();
        const from = proxy.requests.length;
        const error = await owner.submitIntent(read('loop-failure')).then(
          (result) => assert.fail(`a result: ${JSON.stringify(result)}`),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof AuthorityApiError);
        assert.equal(error.status, 500);
        assert.equal(error.code, 'AUTHORITY_LOOP_FAILED');
        assert.equal(error.retryable, true);
        assert.ok(!JSON.stringify(error).includes('eyJ'), 'no token anywhere');
        assert.equal(proxy.requests.length - from, 4, 'maxAttempts tries, no more');
        assert.equal(keysOf(from).size, 1);
        assert.equal(signer.failures(), 4, 'each try reached the signer and failed there');
        assert.deepEqual(
          await owner.intents.list({ actorId: 'loop-failure' }).all(),
          [],
          'no decision recorded',
        );
      } finally {
        await signer.close();
      }
    });

    it('answers INVALID_RESPONSE for a 2xx body that is not the JSON type of the route (a web page in place of the service)', async () => {
      const client = clientFor(agentKey);
      const page = '<!doctype html><title>Console</title>';
      const invalid = (error: unknown) =>
        error instanceof AuthorityApiError && error.code === 'INVALID_RESPONSE';
      proxy.plan({ status: 200, body: page });
      await assert.rejects(client.getIntent('0190f5c2-1111-7000-8000-000000000001'), invalid);
      proxy.plan({ status: 200, body: page });
      await assert.rejects(
        client.waitForApproval('0190f5c2-1111-7000-8000-000000000001', { timeoutMs: 5_000 }),
        invalid,
      );
      proxy.plan({ status: 200, body: [page] });
      await assert.rejects(
        client.consumeToken({ token: 'a.b.c', adapterId: 'external', targetSystem: 'acme/payments' }),
        invalid,
      );
      const owner = clientFor(ownerKey);
      proxy.plan({ status: 200, body: page });
      await assert.rejects(owner.listApprovals().all(), invalid);
      // Liveness and readiness too: a page answered 200 (or 503) is not a service that is up.
      proxy.plan({ status: 200, body: page });
      await assert.rejects(client.health(), invalid);
      proxy.plan({ status: 200, body: [1, 2] });
      await assert.rejects(client.health(), invalid);
      proxy.plan({ status: 200, body: page });
      await assert.rejects(client.ready(), invalid);
      proxy.plan({ status: 503, body: page });
      await assert.rejects(client.ready(), invalid);
      // The service's own answers pass.
      assert.ok(Array.isArray(await owner.listApprovals({ status: 'expired' }).all()));
      assert.equal(typeof (await client.health()).version, 'string');
      assert.equal((await client.ready()).ready, true);
    });

    it('answers a redirect once, as INVALID_RESPONSE with its status: never followed, never retried', async () => {
      const client = clientFor(agentKey);
      const elsewhere = { status: 302, body: '', headers: { location: 'http://127.0.0.1:9/capture' } };
      for (const call of [
        () => client.getIntent('0190f5c2-1111-7000-8000-000000000001'),
        () => client.submitIntent(read('redirected')),
      ]) {
        const before = proxy.requests.length;
        proxy.plan(elsewhere, elsewhere, elsewhere, elsewhere);
        await assert.rejects(
          call(),
          (error: unknown) =>
            error instanceof AuthorityApiError &&
            error.status === 302 &&
            error.code === 'INVALID_RESPONSE' &&
            !error.retryable,
        );
        assert.equal(proxy.requests.length - before, 1, 'one request, not retried nor followed');
        proxy.plan();
      }
    });

    it('returns a token only from a 200 APPROVED body', async () => {
      const client = clientFor(agentKey);
      const approvedLooking = {
        intentId: 'i-1',
        correlationId: 'c-1',
        authorityDecision: { decision: 'DENIED' },
        authorityDecisionToken: 'eyJhbGciOiJFZERTQSJ9.e30.sig',
      };
      proxy.plan({ status: 200, body: approvedLooking });
      const forged = await client.submitIntent(read('forged')).catch((error: unknown) => error);
      assert.ok(forged instanceof AuthorityApiError && forged.code === 'INVALID_RESPONSE');
      proxy.plan({
        status: 202,
        body: { ...approvedLooking, authorityDecision: { decision: 'ESCALATED' }, escalationId: 'e-1' },
      });
      const escalated = await client.submitIntent(read('forged'));
      assert.equal(escalated.outcome, 'ESCALATED');
      assert.equal(escalated.token, undefined, 'a 202 never yields a token');
      const loopFailed = {
        status: 500,
        body: { error: { code: 'AUTHORITY_LOOP_FAILED', message: 'x', requestId: 'r' }, ...approvedLooking },
      };
      proxy.plan(loopFailed, loopFailed, loopFailed, loopFailed);
      const failed = await client.submitIntent(read('forged')).catch((error: unknown) => error);
      assert.ok(failed instanceof AuthorityApiError && failed.code === 'AUTHORITY_LOOP_FAILED');
      assert.deepEqual(await intentsOf('forged'), [], 'the proxy answered; the service decided nothing');
    });
  });
}
