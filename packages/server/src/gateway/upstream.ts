import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  type CallToolResult,
  CallToolResultSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../foundation/version.js';
import { type UpstreamTarget, upstreamEnvironment } from './gateway-settings.js';

/** Pages of `tools/list` the gateway reads at most (a list of 1,000 pages is not an MCP server's). */
const MAX_TOOL_PAGES = 1_000;

/** The name the gateway gives itself towards the agent, and towards the upstream. */
export const GATEWAY_NAME = 'authority-gateway';

/**
 * The gateway never bounds an upstream call by a clock of its own: a tool may legitimately run
 * long, and the agent's own request timeout and cancellation (which the gateway forwards) decide.
 * This is the longest timer Node can arm.
 */
const NO_TIMEOUT_MS = 2_147_483_647;

/** The one upstream MCP server the gateway governs, over the SDK's `Client`. */
export interface Upstream {
  /** Whether the upstream announces `tools.listChanged`. */
  readonly listChanged: boolean;
  /** The upstream's `instructions`, passed on to the agent. */
  readonly instructions: string | undefined;
  /** Every tool of the upstream (all pages of `tools/list`), cached until it announces a change. */
  tools(): Promise<Tool[]>;
  /** A tool by name; an unknown name refreshes the list once first. */
  find(name: string): Promise<Tool | undefined>;
  /** Forwards a `tools/call`; the result comes back as the upstream sent it, without output validation. */
  call(
    params: CallToolRequest['params'],
    options: Pick<RequestOptions, 'signal' | 'onprogress'>,
  ): Promise<CallToolResult>;
  /** Called after the upstream announced that its tool list changed. */
  onToolsChanged(listener: () => void): void;
  /** Called once when the connection to the upstream ends. */
  onClose(listener: () => void): void;
  close(): Promise<void>;
}

/**
 * Connects to the upstream: starts the command (stdio; its environment is the gateway's without
 * any `AUTHORITY_*` variable, its standard error goes to the gateway's) or opens the Streamable
 * HTTP URL. The gateway declares no client capabilities, so the upstream never sends it roots,
 * sampling or elicitation requests.
 */
export async function connectUpstream(
  target: UpstreamTarget,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Upstream> {
  const client = new Client({ name: GATEWAY_NAME, version: VERSION }, { capabilities: {} });
  const transport =
    target.kind === 'command'
      ? new StdioClientTransport({
          command: target.command,
          args: target.args,
          env: upstreamEnvironment(env),
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(target.url);
  const closeListeners: Array<() => void> = [];
  const changeListeners: Array<() => void> = [];
  client.onclose = () => {
    for (const listener of closeListeners.splice(0)) listener();
  };
  await client.connect(transport);

  let cached: Promise<Tool[]> | undefined;
  const fetchAll = async (): Promise<Tool[]> => {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
      // An upstream whose cursors go round, or never end, would hold every call: its list fails.
      if (cursor !== undefined && (seen.has(cursor) || seen.size >= MAX_TOOL_PAGES)) {
        throw new Error(
          `the upstream's tools/list did not end: cursor ${JSON.stringify(cursor.slice(0, 80))} after ${seen.size + 1} pages`,
        );
      }
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
    return tools;
  };
  const tools = (): Promise<Tool[]> => {
    if (!cached) {
      const loading = fetchAll();
      cached = loading;
      // A failed listing is not cached: the next request asks the upstream again.
      loading.catch(() => {
        if (cached === loading) cached = undefined;
      });
    }
    return cached;
  };

  const capabilities = client.getServerCapabilities();
  const listChanged = capabilities?.tools?.listChanged === true;
  if (listChanged) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      cached = undefined;
      for (const listener of changeListeners) listener();
    });
  }

  return {
    listChanged,
    instructions: client.getInstructions(),
    tools,
    async find(name) {
      const known = (await tools()).find((tool) => tool.name === name);
      if (known) return known;
      cached = undefined;
      return (await tools()).find((tool) => tool.name === name);
    },
    call(params, options) {
      return client.request({ method: 'tools/call', params }, CallToolResultSchema, {
        ...options,
        timeout: NO_TIMEOUT_MS,
      }) as Promise<CallToolResult>;
    },
    onToolsChanged(listener) {
      changeListeners.push(listener);
    },
    onClose(listener) {
      closeListeners.push(listener);
    },
    close: () => client.close(),
  };
}
