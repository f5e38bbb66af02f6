import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RemoteNonceStore, remoteJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
import type { Connector } from '../../src/connectors/connector.js';
import {
  ExecutionNotRecordedError,
  type ExecutionRequest,
} from '../../src/connectors/connector-execution.js';
import { createConnectorService } from '../../src/connectors/connector-service.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { createEgressClient, type Resolver } from '../../src/egress/egress-client.js';
import { intentRepository } from '../../src/intent/repositories/intent-repository.js';
import { createTestApp, type Headers, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';
import { recordIntent } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import { mintFor } from '../helpers/tokens.js';
import { startTokenReceiver, type TokenReceiver } from './token-receiver.js';

const TARGET = 'acme/deploy';
const RECEIVER_KEY = 'receiver-key-0b1c2d3e4f';

for (const engine of ENGINES) {
  describe(`http connector execution against a receiver verifying with the SDK (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let receiver: TokenReceiver;
    let connector: Connector;

    before(async () => {
      t = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.0/8', CONNECTOR_TIMEOUT_MS: '400' });
      owner = await t.ownerHeaders('acme');
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      let connectorId = '';
      receiver = await startTokenReceiver({
        jwksUrl: `http://127.0.0.1:${port}/.well-known/authority/acme/jwks.json`,
        tenantId: 'acme',
        adapterId: () => connectorId,
        targetSystem: TARGET,
        clock: t.clock,
      });
      const res = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'http',
          name: 'deployer',
          targetSystem: TARGET,
          config: {
            url: `${receiver.base}/execute?via=authority`,
            headers: { 'X-Receiver-Key': RECEIVER_KEY },
          },
          autoExecute: true,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      connectorId = res.json().id;
      const found = await t.services.connectors.forTarget('acme', TARGET);
      assert.ok(found);
      connector = found;
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    /** An APPROVED intent for the target with a token bound to the connector, as the decision loop mints it. */
    async function approvedIntent(overrides: { targetSystem?: string } = {}) {
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'APPROVED',
        targetSystem: TARGET,
      });
      const row = await t.storage.db
        .selectFrom('intents')
        .select(['correlation_id', 'token'])
        .where('tenant_id', '=', 'acme')
        .where('id', '=', intentId)
        .executeTakeFirstOrThrow();
      const binding = t.services.connectors.tokenBinding(connector, TARGET);
      const minted = await mintFor(t, 'acme', {
        intentId,
        ...binding,
        targetSystem: overrides.targetSystem ?? TARGET,
        proposedAction: 'deploy build 812 to production',
      });
      const request: ExecutionRequest = {
        intentId,
        correlationId: row.correlation_id,
        token: minted.token,
        proposedAction: 'deploy build 812 to production',
        targetSystem: TARGET,
        args: { build: 812, environment: 'production' },
      };
      return { request, minted, externalToken: row.token as string };
    }

    async function entriesOf(intentId: string) {
      const rows = await t.storage.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('intent_id', '=', intentId)
        .orderBy('idx')
        .execute();
      return rows.map((row) => ({ ...JSON.parse(row.canonical), entryHash: row.entry_hash }));
    }

    it('binds the token to the connector: adapterId is its id, adapterTarget its URL without the query', () => {
      assert.deepEqual(t.services.connectors.tokenBinding(connector, TARGET), {
        adapterId: connector.id,
        adapterTarget: `${receiver.base}/execute`,
      });
    });

    it('verifies and consumes the token, then POSTs it to the receiver, whose SDK check accepts it', async () => {
      const { request, minted } = await approvedIntent();
      const before = receiver.received.length;
      const report = await t.services.connectors.execute('acme', connector, request);

      assert.deepEqual(report.execution, {
        attempted: true,
        status: 'executed',
        adapterId: connector.id,
        result: { statusCode: 200, body: { accepted: true, intentId: request.intentId } },
      });
      assert.equal(receiver.received.length, before + 1);
      const call = receiver.received.at(-1);
      assert.ok(call);
      assert.equal(call.method, 'POST');
      assert.equal(call.path, '/execute?via=authority');
      assert.equal(call.headers.authorization, `Bearer ${minted.token}`);
      assert.equal(call.headers['content-type'], 'application/json');
      assert.equal(call.headers['x-receiver-key'], RECEIVER_KEY);
      assert.match(call.headers['user-agent'] ?? '', /^authority-runtime-connectors\//);
      assert.deepEqual(call.body, {
        intentId: request.intentId,
        proposedAction: 'deploy build 812 to production',
        targetSystem: TARGET,
        args: { build: 812, environment: 'production' },
      });
      assert.ok(call.verdict?.valid, JSON.stringify(call.verdict));
      assert.equal(call.verdict.claims.adapterId, connector.id);

      // token.consumed (before the call) and execution.completed (after), both in the intent's correlation.
      assert.equal(report.audit.entriesWritten, 2);
      const entries = await entriesOf(request.intentId);
      const tail = entries.slice(-2);
      assert.deepEqual(
        tail.map((e) => [e.eventType, e.actorId, e.actorType, e.correlationId]),
        [
          ['token.consumed', connector.id, 'connector:http', request.correlationId],
          ['execution.completed', connector.id, 'connector:http', request.correlationId],
        ],
      );
      assert.equal(tail[1].entryHash, report.audit.latestHash);
      const { durationMs, resultHash, ...payload } = tail[1].payload;
      assert.equal(typeof durationMs, 'number');
      assert.match(resultHash, /^[0-9a-f]{64}$/);
      assert.deepEqual(payload, {
        targetSystem: TARGET,
        connectorId: connector.id,
        connectorType: 'http',
        adapterId: connector.id,
        status: 'executed',
        statusCode: 200,
      });
      const nonce = await t.storage.db
        .selectFrom('token_nonces')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('nonce', '=', minted.claims.nonce)
        .executeTakeFirstOrThrow();
      assert.equal(nonce.adapter_id, connector.id);

      const read = await t.app.inject({ method: 'GET', url: `/intent/${request.intentId}`, headers: owner });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json().execution, report.execution);
      const chain = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers: owner });
      assert.equal(chain.json().valid, true, chain.body);
    });

    it("is refused by the service's consume endpoint afterwards: a receiver keeps its own nonce store", async () => {
      const { request } = await approvedIntent();
      assert.equal(
        (await t.services.connectors.execute('acme', connector, request)).execution.status,
        'executed',
      );
      const { port } = t.app.server.address() as AddressInfo;
      const key = await t.services.apiKeys.create('acme', { name: 'receiver', role: 'edge' }, null);
      const verdict = await verifyAuthorityToken(request.token, {
        jwks: remoteJwks(`http://127.0.0.1:${port}/.well-known/authority/acme/jwks.json`, { clock: t.clock }),
        expected: { tenantId: 'acme', adapterId: connector.id, targetSystem: TARGET },
        nonceStore: new RemoteNonceStore({
          baseUrl: `http://127.0.0.1:${port}`,
          apiKey: key.key,
          tenantId: 'acme',
        }),
        clock: t.clock,
      });
      assert.deepEqual(verdict.valid ? 'valid' : verdict.reason, 'NONCE_ALREADY_CONSUMED');
    });

    it('rejects a replayed token with NONCE_ALREADY_CONSUMED; the receiver never sees it again', async () => {
      const { request } = await approvedIntent();
      const first = await t.services.connectors.execute('acme', connector, request);
      assert.equal(first.execution.status, 'executed');
      const count = receiver.received.length;
      const replay = await t.services.connectors.execute('acme', connector, request);
      assert.deepEqual(replay.execution, {
        attempted: true,
        status: 'rejected',
        adapterId: connector.id,
        reason: 'NONCE_ALREADY_CONSUMED',
      });
      assert.equal(replay.audit.entriesWritten, 1, 'only execution.completed: nothing was consumed');
      assert.equal(receiver.received.length, count);
      const last = (await entriesOf(request.intentId)).at(-1);
      assert.equal(last.eventType, 'execution.completed');
      assert.equal(last.payload.status, 'rejected');
      assert.equal(last.payload.reason, 'NONCE_ALREADY_CONSUMED');
      assert.equal(last.payload.resultHash, undefined);
    });

    it('rejects an expired token with TOKEN_EXPIRED before any side effect, consuming nothing', async () => {
      const { request, minted } = await approvedIntent();
      t.clock.advance(306_000);
      const count = receiver.received.length;
      const report = await t.services.connectors.execute('acme', connector, request);
      assert.deepEqual(report.execution, {
        attempted: true,
        status: 'rejected',
        adapterId: connector.id,
        reason: 'TOKEN_EXPIRED',
      });
      assert.equal(receiver.received.length, count);
      const nonce = await t.storage.db
        .selectFrom('token_nonces')
        .select('nonce')
        .where('tenant_id', '=', 'acme')
        .where('nonce', '=', minted.claims.nonce)
        .executeTakeFirst();
      assert.equal(nonce, undefined);
      const read = await t.app.inject({ method: 'GET', url: `/intent/${request.intentId}`, headers: owner });
      assert.deepEqual(read.json().execution, report.execution);
    });

    it("rejects tokens that are not this connector's: minted for 'external', for another target, or forged", async () => {
      const count = receiver.received.length;
      const { request, externalToken } = await approvedIntent();
      const external = await t.services.connectors.execute('acme', connector, {
        ...request,
        token: externalToken,
      });
      assert.equal(external.execution.status, 'rejected');
      assert.equal((external.execution as { reason: string }).reason, 'TOKEN_ADAPTER_MISMATCH');

      const other = await approvedIntent({ targetSystem: 'acme/elsewhere' });
      const target = await t.services.connectors.execute('acme', connector, other.request);
      assert.equal((target.execution as { reason: string }).reason, 'TOKEN_TARGET_MISMATCH');

      await t.ownerHeaders('globex');
      const foreign = await mintFor(t, 'globex', {
        adapterId: connector.id,
        adapterTarget: 'x',
        targetSystem: TARGET,
      });
      const forged = await t.services.connectors.execute('acme', connector, {
        ...request,
        token: foreign.token,
      });
      assert.equal((forged.execution as { reason: string }).reason, 'KID_MISMATCH');

      const garbage = await t.services.connectors.execute('acme', connector, {
        ...request,
        token: 'not.a.token',
      });
      assert.equal((garbage.execution as { reason: string }).reason, 'TOKEN_MALFORMED');
      assert.equal(receiver.received.length, count);
    });

    it('rejects with TENANT_KILL_SWITCH while the kill switch is on', async () => {
      const { request } = await approvedIntent();
      const count = receiver.received.length;
      const on = await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: owner,
        payload: { enabled: true, reason: 'incident 7' },
      });
      assert.equal(on.statusCode, 200, on.body);
      try {
        const report = await t.services.connectors.execute('acme', connector, request);
        assert.equal((report.execution as { reason: string }).reason, 'TENANT_KILL_SWITCH');
        assert.equal(receiver.received.length, count);
      } finally {
        await t.app.inject({
          method: 'PUT',
          url: '/authority/kill-switch/acme',
          headers: owner,
          payload: { enabled: false },
        });
      }
    });

    it('fails with HTTP_ERROR when the receiver answers an error, with its status and body', async () => {
      const { request } = await approvedIntent();
      receiver.failWith(503);
      try {
        const report = await t.services.connectors.execute('acme', connector, request);
        assert.deepEqual(report.execution, {
          attempted: true,
          status: 'failed',
          adapterId: connector.id,
          reason: 'HTTP_ERROR',
          result: { statusCode: 503, body: { accepted: false, intentId: request.intentId } },
        });
        assert.equal(report.audit.entriesWritten, 2);
        const last = (await entriesOf(request.intentId)).at(-1);
        assert.equal(last.payload.statusCode, 503);
        assert.equal(last.payload.reason, 'HTTP_ERROR');
      } finally {
        receiver.failWith(200);
      }
    });

    it('refuses to run a connector for another tenant (programmer misuse)', async () => {
      const { request } = await approvedIntent();
      await assert.rejects(t.services.connectors.execute('globex', connector, request), /its own tenant/);
    });

    it('fails with TIMEOUT when the receiver does not answer within CONNECTOR_TIMEOUT_MS', async () => {
      const { request } = await approvedIntent();
      receiver.hang();
      const started = performance.now();
      const report = await t.services.connectors.execute('acme', connector, request);
      const elapsed = performance.now() - started;
      assert.equal(report.execution.status, 'failed');
      assert.equal((report.execution as { reason: string }).reason, 'TIMEOUT');
      // The message names the setting, not what was left of it for the request (399 ms).
      assert.match(JSON.stringify(report.execution), /within 400 ms/);
      assert.ok(elapsed >= 390 && elapsed < 3_000, `took ${elapsed} ms`);
      const last = (await entriesOf(request.intentId)).at(-1);
      assert.equal(last.payload.reason, 'TIMEOUT');
    });

    it('throws ExecutionNotRecordedError with the outcome when execution.completed cannot be written', async () => {
      const { request } = await approvedIntent();
      const broken = { ...t.storage, writeTransaction: () => Promise.reject(new Error('disk on fire')) };
      const errors: unknown[] = [];
      const service = createConnectorService({
        storage: broken,
        clock: t.clock,
        secretBox: createSecretBox(TEST_MASTER_KEY),
        egress: createEgressClient(t.config.egress),
        tokens: t.services.tokenConsumption,
        timeoutMs: 400,
        recordExecution: intentRepository.recordExecution,
        onError: (error) => errors.push(error),
      });
      const noop = { ...connector, type: 'noop', settings: {} } as Connector;
      const failure = await service.execute('acme', noop, request).then(
        () => assert.fail('expected a rejection'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof ExecutionNotRecordedError);
      assert.deepEqual(failure.execution, {
        attempted: true,
        status: 'executed',
        adapterId: connector.id,
        result: { dryRun: true, intentId: request.intentId },
      });
    });
  });

  describe(`egress guard at execution time (${engine})`, () => {
    it('refuses a target that resolves to a private address at connect time (DNS rebinding): failed, never reached', async () => {
      let answer = ['93.184.216.34'];
      const resolver: Resolver = async () => answer;
      const t = await createTestApp(engine, {}, undefined, { resolver });
      const received: string[] = [];
      const server = http.createServer((req, res) => {
        received.push(req.url ?? '');
        res.writeHead(200).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const owner = await t.ownerHeaders('acme');
        const res = await t.app.inject({
          method: 'POST',
          url: '/connectors',
          headers: owner,
          payload: {
            type: 'http',
            name: 'rebind',
            targetSystem: TARGET,
            config: { url: `http://rebind.example.test:${port}/execute` },
            autoExecute: true,
          },
        });
        assert.equal(res.statusCode, 201, res.body);
        const connector = await t.services.connectors.forTarget('acme', TARGET);
        assert.ok(connector);
        answer = ['127.0.0.1'];
        const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
          tenantId: 'acme',
          decision: 'APPROVED',
          targetSystem: TARGET,
        });
        const minted = await mintFor(t, 'acme', {
          intentId,
          ...t.services.connectors.tokenBinding(connector, TARGET),
          targetSystem: TARGET,
        });
        const report = await t.services.connectors.execute('acme', connector, {
          intentId,
          correlationId: intentId,
          token: minted.token,
          proposedAction: 'deploy',
          targetSystem: TARGET,
        });
        assert.equal(report.execution.status, 'failed');
        assert.equal((report.execution as { reason: string }).reason, 'EGRESS_REFUSED');
        assert.deepEqual(received, []);

        const test = await t.app.inject({
          method: 'POST',
          url: `/connectors/${connector.id}/test`,
          headers: owner,
        });
        assert.equal(test.statusCode, 200, test.body);
        assert.equal(test.json().ok, false);
        assert.match(test.json().error, /^EGRESS_REFUSED/);
        assert.deepEqual(received, []);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await t.close();
      }
    });
  });
}
