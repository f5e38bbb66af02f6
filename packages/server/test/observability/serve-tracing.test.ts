import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../helpers/free-port.js';
import { type ServeProcess, startServeProcess, stopProcess } from '../helpers/serve-process.js';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('authority serve with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let collector: OtlpReceiver;
  let served: ServeProcess;
  let dataDir: string;
  let logs = '';

  before(async () => {
    collector = await startOtlpReceiver();
    dataDir = mkdtempSync(path.join(tmpdir(), 'authority-otel-'));
    served = await startServeProcess(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.base,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      LOG_LEVEL: 'info',
    });
    served.child.stdout?.on('data', (chunk: Buffer) => {
      logs += chunk.toString();
    });
  });
  after(async () => {
    await stopProcess(served.child);
    await collector.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports the request span of a real server, and its log lines carry the trace id', async () => {
    const response = await fetch(`${served.base}/v1/health?probe=1`, {
      headers: { traceparent: `00-${TRACE}-${PARENT}-01` },
    });
    assert.equal(response.status, 200);
    await until(() => collector.spans.some((s) => s.name === 'GET /health'), 'the exported span');
    const span = collector.spans.find((s) => s.name === 'GET /health');
    assert.ok(span);
    assert.deepEqual([span.traceId, span.parentSpanId], [TRACE, PARENT]);
    assert.equal(span.service, 'authority-runtime');
    assert.equal(span.attributes['url.path'], '/v1/health', 'the path as received, without its query');
    assert.equal(span.attributes['http.route'], '/health');
    await until(() => logs.includes('request completed'), 'the request log line');
    const lines = logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Both lines Fastify writes for a request, the first one included, lead to its trace.
    for (const message of ['incoming request', 'request completed']) {
      const found = lines.filter((line) => line.msg === message);
      assert.equal(found.length, 1, `${message}: ${logs}`);
      assert.equal(found[0]?.traceId, TRACE, message);
      assert.equal(found[0]?.spanId, span.spanId, message);
    }
  });
});

describe('authority serve with a trace collector that is down', () => {
  /** A service exporting to a port nothing listens on, every export refused. */
  async function serveTowardsNowhere(env: Record<string, string>) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-otel-down-'));
    const served = await startServeProcess(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
      LOG_LEVEL: 'info',
      ...env,
    });
    const output = { logs: '' };
    served.child.stdout?.on('data', (chunk: Buffer) => {
      output.logs += chunk.toString();
    });
    const dispose = async () => {
      await stopProcess(served.child, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    };
    return { served, output, dispose };
  }

  it('stops cleanly on SIGTERM (exit 0) with spans still buffered, and says they were lost', async () => {
    const { served, output, dispose } = await serveTowardsNowhere({});
    try {
      // The default batch delay (5 s) keeps this request's span buffered until the stop.
      assert.equal((await fetch(`${served.base}/health`)).status, 200);
      assert.equal(await stopProcess(served.child), 0, output.logs);
      assert.match(output.logs, /"level":40,[^\n]*"msg":"tracing: /);
    } finally {
      await dispose();
    }
  });

  it('warns of a failed export while it runs, and goes on serving', async () => {
    const { served, output, dispose } = await serveTowardsNowhere({ OTEL_BSP_SCHEDULE_DELAY: '50' });
    try {
      assert.equal((await fetch(`${served.base}/health`)).status, 200);
      await until(
        () => /"level":40,[^\n]*"msg":"tracing: an export failed: [^"]*ECONNREFUSED/.test(output.logs),
        'the export failure warning',
      );
      assert.equal((await fetch(`${served.base}/health`)).status, 200);
    } finally {
      await dispose();
    }
  });
});
