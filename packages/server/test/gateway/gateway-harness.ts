import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuthorityClient } from '@authority-runtime/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { quote } from 'shlex';
import { DECISION_META_KEY } from '../../src/gateway/refusals.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { gatherOutput } from '../helpers/output.js';
import type { Recorded } from './recording-upstream.js';

/**
 * What the gateway tests share: a real service on a real port (behind a fault proxy that forwards
 * unless told otherwise), principals of several roles, and the real `authority gateway` process
 * with a real MCP `Client` in front of it, over stdio or Streamable HTTP.
 */

export const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');
export const RECORDING_STDIO = path.resolve(import.meta.dirname, 'recording-upstream-stdio.ts');
export const EVERYTHING = path.resolve(
  import.meta.dirname,
  '../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
/** Node with the sources' resolution (the SDK from TypeScript), as the test runner itself runs. */
export const NODE_TS = [process.execPath, '--conditions=development', '--import', 'tsx'];
export const TENANT = 'acme';
export const TARGET = 'acme/mcp-tools';
/** The agent name the test clients give; the gateway's default actor is "mcp:" + it. */
export const AGENT_NAME = 'gateway-test';
export const ACTOR_ID = `mcp:${AGENT_NAME}`;
export const RATIONALE = 'Reviewed the tool call and its arguments';

export interface Service {
  t: TestApp;
  /** The service itself, `http://127.0.0.1:<port>`. */
  base: string;
  /** In front of the service; the gateway is pointed here. */
  proxy: FaultProxy;
  agentKey: string;
  owner: AuthorityClient;
  approver: AuthorityClient;
  seniors: [AuthorityClient, AuthorityClient];
  /** Intents of the gateway's default actor, newest first. */
  intents(): Promise<string[]>;
  close(): Promise<void>;
}

const clientFor = (base: string, apiKey: string) =>
  new AuthorityClient({
    baseUrl: base,
    tenantId: TENANT,
    apiKey,
    backoff: { baseDelayMs: 5, maxDelayMs: 20 },
  });

/**
 * The service on SQLite listening on a free port; its clock (moved by hand) starts now. The tenant's
 * policy is the worked example of docs/mcp-gateway.md: `mcp-basics` alone, with
 * `lowConfidenceEscalateBelow` 0.3.
 */
export async function startService(): Promise<Service> {
  const t = await createTestApp('sqlite');
  t.clock.advance(Date.now() - t.clock());
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const { ownerKey } = await t.createTenant(TENANT, 'enterprise');
  const key = async (role: string) =>
    (await t.services.apiKeys.create(TENANT, { name: role, role }, null)).key;
  const owner = clientFor(base, ownerKey.key);
  await owner.policies.save({ rules: [], replacePacks: true, activate: true });
  await owner.policies.installPack({ pack: 'mcp-basics' });
  await owner.thresholds.update({ lowConfidenceEscalateBelow: 0.3 });
  const proxy = await startFaultProxy(base);
  return {
    t,
    base,
    proxy,
    agentKey: await key('agent'),
    owner,
    approver: clientFor(base, await key('approver')),
    seniors: [clientFor(base, await key('senior_approver')), clientFor(base, await key('senior_approver'))],
    intents: async () => (await owner.intents.list({ actorId: ACTOR_ID }).all()).map((i) => i.intentId),
    async close() {
      await proxy.close();
      await t.close();
    },
  };
}

export interface GatewayOptions {
  /** The service the gateway talks to (usually the proxy). */
  serviceUrl: string;
  agentKey: string;
  upstream: { command: string[] } | { url: string };
  config?: object;
  waitApproval?: boolean;
  decisionTimeoutMs?: number;
  env?: Record<string, string>;
}

/** A scratch directory with the record file and the config file; removed by `dispose`. */
export function scratch() {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-gateway-'));
  const recordFile = path.join(dir, 'records.jsonl');
  return {
    dir,
    recordFile,
    records(): Recorded[] {
      if (!existsSync(recordFile)) return [];
      return readFileSync(recordFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Recorded);
    },
    calls() {
      return this.records().flatMap((r) => (r.event === 'call' ? [r] : []));
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The `node … authority gateway …` arguments for these options (the config file is written to `configDir`). */
export function gatewayArgs(options: GatewayOptions, configDir: string): string[] {
  const args = [...NODE_TS.slice(1), CLI, 'gateway'];
  if ('command' in options.upstream) args.push('--upstream', options.upstream.command.map(quote).join(' '));
  else args.push('--upstream-url', options.upstream.url);
  if (options.config) {
    const file = path.join(configDir, `gateway-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(options.config));
    args.push('--config', file);
  }
  if (options.waitApproval) args.push('--wait-approval');
  if (options.decisionTimeoutMs !== undefined)
    args.push('--decision-timeout-ms', String(options.decisionTimeoutMs));
  return args;
}

/** This process's environment with the gateway's `AUTHORITY_*` settings for these options. */
export function gatewayEnv(options: GatewayOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return {
    ...env,
    AUTHORITY_URL: options.serviceUrl,
    AUTHORITY_TENANT: TENANT,
    AUTHORITY_API_KEY: options.agentKey,
    AUTHORITY_TARGET_SYSTEM: TARGET,
    ...options.env,
  };
}

export interface StdioGateway {
  client: Client;
  /** Everything the gateway wrote to standard error so far (its call log, the upstream's errors). */
  stderr(): string;
  /**
   * The call log once it has at least `count` lines: a call's answer can arrive before its log
   * line does. Rejects with what arrived if the lines do not come within 10 s.
   */
  callLogOf(count: number): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** Starts `authority gateway` the way a desktop MCP client does, and connects the SDK's `Client` to it over stdio. */
export async function connectStdio(options: GatewayOptions, configDir: string): Promise<StdioGateway> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: gatewayArgs(options, configDir),
    env: gatewayEnv(options),
    stderr: 'pipe',
  });
  const stderr = gatherOutput(transport.stderr);
  const callLogOf = (count: number) =>
    stderr.until((text) => {
      const lines = callLog(text);
      return lines.length >= count ? lines : undefined;
    }, `${count} call log lines`);
  const client = new Client({ name: AGENT_NAME, version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: stderr.text, callLogOf, close: () => client.close() };
}

export interface HttpGateway {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  child: ChildProcess;
  stderr(): string;
  connect(name?: string): Promise<Client>;
  close(): Promise<void>;
}

/** Starts `authority gateway --listen 127.0.0.1:0` and resolves once it prints where it listens. */
export async function startHttpGateway(options: GatewayOptions, configDir: string): Promise<HttpGateway> {
  const child = spawn(process.execPath, [...gatewayArgs(options, configDir), '--listen', '127.0.0.1:0'], {
    env: gatewayEnv(options),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${stderr}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited (${code}): ${stderr}`));
    });
  });
  const clients: Client[] = [];
  return {
    url,
    child,
    stderr: () => stderr,
    async connect(name = AGENT_NAME) {
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** The gateway's call log: the JSON lines of standard error that describe a call. */
export function callLog(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"event":"tools/call"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** `_meta["authority-runtime/decision"]` of a refused call (empty for a forwarded one). */
export function decisionOf(result: CallToolResult): Record<string, unknown> {
  return (result._meta?.[DECISION_META_KEY] ?? {}) as Record<string, unknown>;
}

/** An MCP server of this process served over Streamable HTTP on loopback (a gateway's `--upstream-url`). */
export async function serveOverHttp(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
  await server.connect(transport);
  const httpServer = http.createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await server.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
