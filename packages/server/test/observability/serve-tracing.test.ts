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
  it('stops cleanly on SIGTERM (exit 0) and says the buffered spans were lost', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-otel-down-'));
    // Nothing listens on this port: every export is refused.
    const served = await startServeProcess(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      LOG_LEVEL: 'info',
    });
    let logs = '';
    served.child.stdout?.on('data', (chunk: Buffer) => {
      logs += chunk.toString();
    });
    try {
      assert.equal((await fetch(`${served.base}/health`)).status, 200);
      assert.equal(await stopProcess(served.child), 0, logs);
      assert.match(logs, /tracing: the spans still buffered could not be exported at shutdown/);
    } finally {
      await stopProcess(served.child, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
