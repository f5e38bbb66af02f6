import type { Actor } from '@authority-runtime/sdk/wire';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Progress,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { VERSION } from '../foundation/version.js';
import type { CallLog } from './call-log.js';
import type { GatewayConfig } from './gateway-config.js';
import { deniedByGateway, refusalResult } from './refusals.js';
import type { ToolCallGate } from './tool-call-gate.js';
import { cutToCodePoints } from './tool-call-intent.js';
import { GATEWAY_NAME, type Upstream } from './upstream.js';

export interface GatewayServerDeps {
  upstream: Upstream;
  gate: ToolCallGate;
  config: GatewayConfig;
  log: CallLog;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * `tools/call` with its params unchecked. The MCP SDK parses a request with the schema it was
 * registered with before anything else and answers a failure -32603 (internal error); registered
 * with this one, the SDK's own check of `tools/call` runs first and answers -32602 (invalid params),
 * as JSON-RPC names malformed params.
 */
const AnyToolCall = CallToolRequestSchema.extend({ params: z.unknown().optional() });

/**
 * A JSON-RPC error of the gateway's own: its code, and the message as written. (An `McpError`
 * carries `MCP error <code>: ` in its message, which the SDK sends on the wire, so an SDK client,
 * which adds that prefix itself, would show it twice.)
 */
function rpcError(code: ErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/** `Actor.id` is at most 200 characters. */
const ACTOR_ID_LENGTH = 200;

/**
 * The actor of a session without a configured one: `mcp:` and the client's name, at most 200 code
 * points, with control characters and ill-formed Unicode (which the service refuses in any body)
 * replaced by U+FFFD, so that no client name makes every call of its session fail.
 */
export function sessionActorId(clientName: string | undefined): string {
  const name = (clientName ?? 'unknown').toWellFormed().replace(/\p{Cc}/gu, '\ufffd');
  return cutToCodePoints(`mcp:${name}`, ACTOR_ID_LENGTH);
}

/**
 * Progress towards the agent for one request that carried a progress token: the waiting ticks of
 * `--wait-approval` first, then the upstream's own progress shifted past them, so the values the
 * agent sees only ever increase (the MCP rule), whoever reports.
 */
function progressRelay(token: string | number, extra: Extra) {
  let sent = 0;
  const send = (progress: number, total: number | undefined, message: string | undefined) => {
    sent = progress;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      })
      .catch(() => {});
  };
  let base: number | undefined;
  return {
    waiting: (message: string) => send(sent + 1, undefined, message),
    upstream: (update: Progress) => {
      base ??= sent;
      send(
        base + update.progress,
        update.total === undefined ? undefined : base + update.total,
        update.message,
      );
    },
  };
}

/**
 * The request as the upstream receives it: the agent's, less its progress token (the SDK gives the
 * upstream request a token of its own, whose progress is relayed under the agent's).
 */
function forwardedParams(params: CallToolRequest['params']): CallToolRequest['params'] {
  const { _meta: meta, ...rest } = params;
  if (meta === undefined) return rest;
  const { progressToken: _agentToken, ...others } = meta;
  return Object.keys(others).length > 0 ? { ...rest, _meta: others } : rest;
}

/**
 * One MCP server towards one agent session (stdio has one; Streamable HTTP one per session): only
 * tools, announced with `listChanged` when the upstream has it, under the name `authority-gateway`.
 * `tools/list` is the upstream's list minus hidden tools; every `tools/call` goes through the gate
 * and reaches the upstream only when the gate says `forward`.
 */
export function createGatewayServer(deps: GatewayServerDeps): Server {
  const { upstream, gate, config, log } = deps;
  const server = new Server(
    { name: GATEWAY_NAME, version: VERSION },
    {
      capabilities: { tools: upstream.listChanged ? { listChanged: true } : {} },
      ...(upstream.instructions === undefined ? {} : { instructions: upstream.instructions }),
    },
  );

  const actor = (): Actor =>
    config.actor ?? { id: sessionActorId(server.getClientVersion()?.name), type: 'agent' };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await upstream.tools()).filter((tool) => !config.toolSettings(tool.name).hidden),
  }));

  server.setRequestHandler(AnyToolCall, async (call, extra: Extra) => {
    const request: CallToolRequest = CallToolRequestSchema.parse(call);
    // Nothing is decided for a client that has not said who it is (the actor is its name).
    if (server.getClientVersion() === undefined) {
      throw rpcError(ErrorCode.InvalidRequest, 'Send initialize before tools/call');
    }
    const started = performance.now();
    const { name } = request.params;
    const record = (decision: string, intentId?: string, code?: string) =>
      log({
        tool: name,
        intentId,
        decision,
        ...(code === undefined ? {} : { code }),
        ms: performance.now() - started,
      });

    const tool = await upstream.find(name);
    if (!tool || config.toolSettings(name).hidden) {
      const refusal = deniedByGateway('unknown tool', 'UNKNOWN_TOOL');
      record(refusal.meta.decision, undefined, refusal.meta.code);
      return refusalResult(refusal, false);
    }
    const token = request.params._meta?.progressToken;
    const relay = token === undefined ? undefined : progressRelay(token, extra);
    const outcome = await gate.decide({
      name,
      arguments: request.params.arguments,
      actor: actor(),
      signal: extra.signal,
      ...(relay ? { onWaiting: relay.waiting } : {}),
    });
    if (outcome.kind === 'refuse') {
      const { meta } = outcome.refusal;
      record(meta.decision, meta.intentId, meta.code);
      return refusalResult(outcome.refusal, tool.outputSchema !== undefined);
    }
    let result: CallToolResult;
    try {
      result = await upstream.call(forwardedParams(request.params), {
        signal: extra.signal,
        ...(relay ? { onprogress: relay.upstream } : {}),
      });
    } finally {
      record(outcome.decision, outcome.intentId);
    }
    return result;
  });

  return server;
}
