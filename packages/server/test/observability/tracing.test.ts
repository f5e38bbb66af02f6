import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startTracing, type TracingHandle } from '../../src/app/tracing-sdk.js';
import {
  traceFields,
  tracingEnabled,
  tracingRequested,
  withTraceHeaders,
} from '../../src/foundation/tracing.js';
import { PUBLIC } from '../../src/http/access.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { createEndpoint, testWorker } from '../webhooks/fixtures.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

const INBOUND_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INBOUND_PARENT = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe('tracing decides by the OTEL_* environment', () => {
  it('is requested by an OTLP endpoint, and not when OTEL_SDK_DISABLED=true', () => {
    assert.equal(tracingRequested({}), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
    assert.equal(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
      false,
    );
    assert.equal(tracingEnabled(), false, 'nothing started: the helpers are off');
    const headers = { 'user-agent': 'x' };
    assert.equal(withTraceHeaders(headers), headers, 'no traceparent goes out');
    assert.deepEqual(traceFields(), {}, 'log lines get no trace fields');
  });
});

describe('traces exported over OTLP/HTTP to a real collector', () => {
  let collector: OtlpReceiver;
  let tracing: TracingHandle;
  let t: TestApp;
  let agent: Headers;
  let owner: Headers;
  let peer: Receiver;
  const logLines: Array<Record<string, unknown>> = [];

  before(async () => {
    collector = await startOtlpReceiver();
    peer = await startReceiver(() => 200);
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.base;
    process.env.OTEL_SERVICE_NAME = 'authority-under-test';
    tracing = startTracing();
    t = await createTestApp('sqlite', { ALLOW_PRIVATE_EGRESS: '1' }, (app) => {
      app.get('/test/log-probe', { config: { access: PUBLIC } }, async (request) => {
        request.log.info('probe');
        return { ok: true };
      });
    });
    owner = await t.ownerHeaders('acme');
    agent = await t.roleHeaders('acme', 'agent');
  });
  after(async () => {
    await t.close();
    await tracing.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_SERVICE_NAME;
    await peer.close();
    await collector.close();
  });

  const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

  it('POST /intent: the request continues the inbound traceparent; gates, group commit, transaction and signing are its descendants', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/intent',
      headers: { ...agent, traceparent: `00-${INBOUND_TRACE}-${INBOUND_PARENT}-01` },
      payload: intentPayload('list open pull requests'),
    });
    assert.equal(response.statusCode, 200, response.body);
    await tracing.flush();

    assert.ok(collector.requests.length > 0, 'the exporter posted to the collector');
    assert.ok(collector.requests.every((r) => r.path === '/v1/traces'));
    assert.ok(collector.requests.every((r) => r.contentType?.startsWith('application/json')));
    const trace = collector.spans.filter((span) => span.traceId === INBOUND_TRACE);
    const [request] = named(trace, 'POST /intent');
    assert.ok(request, `spans: ${trace.map((s) => s.name).join(', ')}`);
    assert.equal(request.parentSpanId, INBOUND_PARENT, 'the caller’s span is the parent');
    assert.equal(request.kind, 2, 'SERVER');
    assert.equal(request.attributes['http.route'], '/intent');
    assert.equal(request.attributes['http.response.status_code'], 200);
    assert.equal(request.service, 'authority-under-test', 'OTEL_SERVICE_NAME is honoured');

    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const descendsFromRequest = (span: ReceivedSpan): boolean => {
      for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) {
        if (at.spanId === request.spanId) return true;
      }
      return false;
    };
    const gates = trace.filter((span) => span.name.startsWith('gate '));
    assert.deepEqual(
      gates.map((g) => g.attributes['authority.gate']),
      ['kill_switch', 'rbac', 'structural', 'authority_rules'],
    );
    for (const gate of gates) assert.equal(gate.parentSpanId, request.spanId, gate.name);
    for (const name of ['sign decision_token', 'group_commit', 'db.transaction']) {
      const [span] = named(trace, name);
      assert.ok(span, `${name} in the request's trace`);
      assert.ok(descendsFromRequest(span), `${name} descends from the request span`);
    }
    const [commit] = named(trace, 'group_commit');
    assert.ok(commit);
    assert.ok(
      named(trace, 'db.transaction').some((span) => span.parentSpanId === commit.spanId),
      'the transaction runs inside the group commit',
    );
    assert.equal(commit.attributes['authority.batch_size'], 1);
    assert.ok(
      commit.links.some((link) => link.spanId === request.spanId),
      'the batch links each request',
    );
  });

  it('a request without traceparent starts a trace of its own', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/tenant', headers: owner });
    assert.equal(response.statusCode, 200);
    await tracing.flush();
    const span = collector.spans.find((s) => s.name === 'GET /tenant');
    assert.ok(span);
    assert.equal(span.parentSpanId, '');
    assert.notEqual(span.traceId, INBOUND_TRACE);
  });

  it('webhook delivery sends the traceparent of its span to the receiver', async () => {
    await createEndpoint(t, owner, `${peer.base}/hooks`, ['decision.denied']);
    const denied = await t.app.inject({
      method: 'POST',
      url: '/intent',
      headers: agent,
      payload: intentPayload('list branches', {
        riskContext: { baseRiskScore: 10, touchesProduction: true },
      }),
    });
    assert.equal(denied.statusCode, 403, denied.body);
    assert.equal(await testWorker(t).runOnce(), 1);
    await tracing.flush();
    const delivered = peer.received.find((r) => r.path === '/hooks');
    assert.ok(delivered);
    const match = TRACEPARENT.exec(String(delivered.headers.traceparent));
    assert.ok(match, `traceparent: ${delivered.headers.traceparent}`);
    const [deliver] = named(collector.spans, 'webhook deliver');
    assert.ok(deliver);
    assert.equal(deliver.kind, 3, 'CLIENT');
    assert.equal(match[1], deliver.traceId);
    assert.equal(match[2], deliver.spanId, 'the receiver sees the delivery span as its parent');
    assert.equal(deliver.attributes['http.response.status_code'], 200);
    assert.equal(deliver.status, 0, 'a 2xx answer leaves the status unset');
  });

  it('a webhook delivery answered 4xx or 5xx is a failed client span', async () => {
    const failing = await startReceiver(() => 503);
    try {
      await createEndpoint(t, owner, `${failing.base}/failing`, ['decision.denied']);
      const before = named(collector.spans, 'webhook deliver').length;
      const denied = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list tags', { riskContext: { baseRiskScore: 10, touchesProduction: true } }),
      });
      assert.equal(denied.statusCode, 403, denied.body);
      await testWorker(t).runOnce();
      await tracing.flush();
      const attempts = named(collector.spans, 'webhook deliver').slice(before);
      const failed = attempts.find((span) => span.attributes['http.response.status_code'] === 503);
      assert.ok(failed, `attempts: ${JSON.stringify(attempts.map((s) => s.attributes))}`);
      assert.equal(failed.status, 2, 'ERROR');
    } finally {
      await failing.close();
    }
  });

  it('connector execution: a span under the request, and the request’s trace reaches the connector', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/connectors',
      headers: owner,
      payload: {
        type: 'http',
        name: 'deployer',
        targetSystem: 'acme/deploy',
        config: { url: `${peer.base}/execute` },
        autoExecute: true,
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const inbound = 'aaaabbbbccccddddeeeeffff00001111';
    const response = await t.app.inject({
      method: 'POST',
      url: '/intent',
      headers: { ...agent, traceparent: `00-${inbound}-${INBOUND_PARENT}-01` },
      payload: intentPayload('list open pull requests', { targetSystem: 'acme/deploy' }),
    });
    assert.equal(response.statusCode, 200, response.body);
    await tracing.flush();
    const [execute] = collector.spans.filter((s) => s.name === 'connector execute' && s.traceId === inbound);
    assert.ok(execute, 'the execution span is in the caller’s trace');
    assert.equal(execute.attributes['authority.connector.type'], 'http');
    const call = peer.received.find((r) => r.path === '/execute');
    assert.ok(call);
    const match = TRACEPARENT.exec(String(call.headers.traceparent));
    assert.ok(match, `traceparent: ${call.headers.traceparent}`);
    assert.equal(match[1], inbound, 'the connector sees the caller’s trace');
  });

  it('log lines written inside a request carry its traceId and spanId', async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
          logLines.push(JSON.parse(line));
        done();
      },
    });
    const { default: pino } = await import('pino');
    const logger = pino({ mixin: traceFields }, stream);
    const traced = await createTestApp('sqlite', {}, (app) => {
      app.get('/test/log-probe', { config: { access: PUBLIC } }, async () => {
        logger.info('probe');
        return { ok: true };
      });
    });
    try {
      const response = await traced.app.inject({
        method: 'GET',
        url: '/test/log-probe',
        headers: { traceparent: `00-${INBOUND_TRACE}-${INBOUND_PARENT}-01` },
      });
      assert.equal(response.statusCode, 200);
    } finally {
      await traced.close();
    }
    await tracing.flush();
    const probe = logLines.find((line) => line.msg === 'probe');
    assert.ok(probe);
    assert.equal(probe.traceId, INBOUND_TRACE);
    const span = collector.spans.find((s) => s.name === 'GET /test/log-probe' && s.traceId === INBOUND_TRACE);
    assert.ok(span);
    assert.equal(probe.spanId, span.spanId);
    logger.info('outside');
    const outside = logLines.find((line) => line.msg === 'outside');
    assert.ok(outside && outside.traceId === undefined, 'no span, no traceId');
  });
});
