import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AuthorityClient } from '@authority-runtime/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { startEmbeddedServer } from './embedded-server.js';
import { machineLine } from './machine.js';

/**
 * The MCP gateway's added latency (contract §11: at most 2 ms at p50 beyond the decision's own
 * time). One iteration times, one after the other, the same `tools/call` straight to the upstream,
 * the decision alone (`POST /intent` then `POST /authority/tokens/consume` through the SDK client,
 * as the gateway makes them), and the call through `authority gateway`; sequential calls, so each
 * figure is one call's latency. The three are interleaved so that the machine's load drifts over
 * all of them alike. Added = through the gateway − direct − decision.
 */

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '100' },
    'ceiling-duration': { type: 'string', default: '5' },
  },
});
const ceilingSeconds = Number(values['ceiling-duration']);
const calls = Number(values.calls);
const warmup = Number(values.warmup);
const root = path.resolve(import.meta.dirname, '..');
const nodeTs = ['--conditions=development', '--import', 'tsx'];
const upstreamArgs = [...nodeTs, path.join(root, 'bench/mcp-upstream.ts')];

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(9);

console.log(`machine: ${machineLine()}`);
console.log(
  `load average before the run: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

const empty = Fastify();
empty.get('/', async () => ({ ok: true }));
await empty.listen({ port: 0, host: '127.0.0.1' });
const emptyAddress = empty.server.address();
const ceiling = await autocannon({
  url: `http://127.0.0.1:${typeof emptyAddress === 'object' && emptyAddress ? emptyAddress.port : 0}/`,
  connections: 16,
  duration: ceilingSeconds,
  workers: 1,
});
await empty.close();
console.log(
  `empty Fastify route (ceiling, 16 connections, ${ceilingSeconds} s): ${Math.round(ceiling.requests.average)} req/s, ` +
    `p50 ${ceiling.latency.p50} ms, p99 ${ceiling.latency.p99} ms`,
);

const service = await startEmbeddedServer();
const apiKey = (service.headers.authorization ?? '').replace(/^Bearer /, '');
const targetSystem = 'bench/mcp-tools';
const authority = new AuthorityClient({ baseUrl: service.base, tenantId: 'bench', apiKey });

const direct = new Client({ name: 'bench-direct', version: '1.0.0' }, { capabilities: {} });
await direct.connect(
  new StdioClientTransport({ command: process.execPath, args: upstreamArgs, stderr: 'inherit' }),
);

const env: Record<string, string> = {};
for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
const gateway = new Client({ name: 'bench-agent', version: '1.0.0' });
let gatewayLog = '';
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    ...nodeTs,
    path.join(root, 'packages/server/src/cli/main.ts'),
    'gateway',
    '--upstream',
    [process.execPath, ...upstreamArgs].join(' '),
  ],
  env: {
    ...env,
    AUTHORITY_URL: service.base,
    AUTHORITY_TENANT: 'bench',
    AUTHORITY_API_KEY: apiKey,
    AUTHORITY_TARGET_SYSTEM: targetSystem,
  },
  stderr: 'pipe',
});
transport.stderr?.on('data', (chunk: Buffer) => {
  gatewayLog += chunk.toString();
});
await gateway.connect(transport);

const args = { path: 'docs/README.md' };
const call = { name: 'read_file', arguments: args };
const intent = {
  actor: { id: 'mcp:bench-agent', type: 'agent' as const },
  targetSystem,
  proposedAction: `read_file ${JSON.stringify(args)}`,
  args: { tool: 'read_file', arguments: args },
  riskContext: { baseRiskScore: 10 },
};

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function decision(): Promise<void> {
  const submitted = await authority.submitIntent(intent);
  if (submitted.outcome !== 'APPROVED') throw new Error(`expected APPROVED, got ${submitted.outcome}`);
  const verdict = await authority.consumeToken({
    token: submitted.token,
    adapterId: 'external',
    targetSystem,
  });
  if (!verdict.valid) throw new Error(`token refused: ${verdict.reason}`);
}

async function throughGateway(): Promise<void> {
  const result = await gateway.callTool(call);
  if (result.isError) throw new Error(`refused: ${JSON.stringify(result.content)}`);
}

const samples = {
  direct: [] as number[],
  decision: [] as number[],
  gateway: [] as number[],
  added: [] as number[],
};
for (let i = 0; i < warmup + calls; i += 1) {
  const d = await time(() => direct.callTool(call));
  const a = await time(decision);
  const g = await time(throughGateway);
  if (i < warmup) continue;
  samples.direct.push(d);
  samples.decision.push(a);
  samples.gateway.push(g);
  samples.added.push(g - d - a);
}

const direct50 = stats(samples.direct);
const decision50 = stats(samples.decision);
const gateway50 = stats(samples.gateway);
const added = stats(samples.added);
console.log(
  `${calls} sequential calls of each kind after ${warmup} warm-up iterations (embedded SQLite, starter policy: APPROVED)`,
);
console.log(`                                               p50       p99`);
console.log(`direct upstream call (stdio)              ${ms(direct50.p50)} ${ms(direct50.p99)}`);
console.log(`decision alone (POST /intent + consume)   ${ms(decision50.p50)} ${ms(decision50.p99)}`);
console.log(`through authority gateway (stdio)         ${ms(gateway50.p50)} ${ms(gateway50.p99)}`);
console.log(`added by the gateway, per iteration       ${ms(added.p50)} ${ms(added.p99)}`);
console.log(
  `added at p50: gateway − direct − decision ${ms(gateway50.p50 - direct50.p50 - decision50.p50)}  (target ≤ 2 ms)`,
);
const logged = gatewayLog.split('\n').filter((line) => line.includes('"event":"tools/call"')).length;
console.log(`gateway call log lines: ${logged}`);

await gateway.close();
await direct.close();
await service.close();
