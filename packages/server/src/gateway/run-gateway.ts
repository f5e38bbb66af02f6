import { AuthorityClient } from '@authority-runtime/sdk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { jsonLineLog } from './call-log.js';
import { configFromTargetSystem, type GatewayConfig, loadGatewayConfig } from './gateway-config.js';
import { createGatewayServer } from './gateway-server.js';
import { type GatewayFlags, type GatewaySettings, resolveGatewaySettings } from './gateway-settings.js';
import { listenStreamableHttp } from './http-listener.js';
import { checkService } from './service-check.js';
import { ToolCallGate } from './tool-call-gate.js';
import { connectUpstream, type Upstream } from './upstream.js';

type Env = Readonly<Record<string, string | undefined>>;

function configOf(settings: GatewaySettings): GatewayConfig {
  if (settings.configFile !== undefined) return loadGatewayConfig(settings.configFile);
  return configFromTargetSystem(settings.targetSystem ?? '');
}

function describeUpstream(settings: GatewaySettings): string {
  const target = settings.upstream;
  return target.kind === 'command' ? target.command : target.url.href;
}

async function openUpstream(settings: GatewaySettings, env: Env): Promise<Upstream> {
  try {
    return await connectUpstream(settings.upstream, env);
  } catch (error) {
    throw new Error(
      `the upstream MCP server (${describeUpstream(settings)}) could not be reached: ${(error as Error).message}`,
    );
  }
}

/**
 * `authority gateway`: validates every setting (a {@link ConfigError} names the bad one), asks the
 * service whether it takes the URL, tenant and key (a refusal is a ConfigError too), connects
 * to the upstream, then serves the agent over stdio, or over Streamable HTTP with `--listen`; it
 * resolves once serving, and the process runs until the agent goes away (stdio), a signal arrives,
 * or the upstream closes (exit 1). Standard output
 * carries nothing but MCP messages in stdio mode; everything else goes to standard error.
 */
export async function runGateway(flags: GatewayFlags, env: Env): Promise<void> {
  const settings = resolveGatewaySettings(flags, env);
  const config = configOf(settings);
  const client = new AuthorityClient({ ...settings.service, timeoutMs: settings.decisionTimeoutMs });
  const gate = new ToolCallGate({
    client,
    config,
    waitApproval: settings.waitApproval,
    decisionTimeoutMs: settings.decisionTimeoutMs,
  });
  const probe = new AuthorityClient({
    ...settings.service,
    timeoutMs: settings.decisionTimeoutMs,
    maxAttempts: 1,
  });
  const check = await checkService(probe);
  if (!check.ok) {
    process.stderr.write(
      `authority gateway: the service at ${settings.service.baseUrl} did not answer at start ` +
        `(${check.reason}); every call is refused until it does\n`,
    );
  }
  const upstream = await openUpstream(settings, env);
  const log = jsonLineLog(process.stderr);
  const createServer = () => createGatewayServer({ upstream, gate, config, log });

  let servers: () => Server[];
  let closeAgentSide: () => Promise<void>;
  if (settings.listen) {
    const listener = await listenStreamableHttp({ ...settings.listen, createServer });
    servers = listener.servers;
    closeAgentSide = listener.close;
    process.stderr.write(`authority gateway listening on ${listener.url}\n`);
  } else {
    const server = createServer();
    await server.connect(new StdioServerTransport());
    servers = () => [server];
    closeAgentSide = () => server.close();
  }

  upstream.onToolsChanged(() => {
    for (const server of servers()) server.sendToolListChanged().catch(() => {});
  });

  let stopping = false;
  const stop = async (code: number, reason?: string) => {
    if (stopping) return;
    stopping = true;
    if (reason !== undefined) process.stderr.write(`authority gateway: ${reason}\n`);
    await closeAgentSide().catch(() => {});
    await upstream.close().catch(() => {});
    process.exit(code);
  };
  upstream.onClose(() => void stop(1, 'the upstream MCP server closed the connection'));
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  if (!settings.listen) process.stdin.once('end', () => void stop(0));
}
