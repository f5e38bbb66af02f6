import { setTimeout as sleep } from 'node:timers/promises';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A small real MCP server for the gateway tests, written with the SDK's `Server`: it records
 * everything it receives (the proof that a refused call never arrives), pages its tool list two
 * tools at a time, announces `tools.listChanged`, and can grow a tool on demand.
 */

export type Recorded =
  | { event: 'start'; pid: number; env: Record<string, string | undefined> }
  | { event: 'initialized'; clientInfo: unknown; capabilities: unknown }
  | {
      event: 'call';
      name: string;
      arguments: Record<string, unknown> | undefined;
      meta: Record<string, unknown> | undefined;
    };

export const PAGE_SIZE = 2;

const object = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object' as const,
  properties,
  required,
});

export const RECORDING_TOOLS: Tool[] = [
  {
    name: 'read_file',
    description: 'Reads a file',
    inputSchema: object({ path: { type: 'string' } }, ['path']),
  },
  {
    name: 'write_file',
    description: 'Writes a file',
    inputSchema: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path']),
  },
  {
    name: 'run_command',
    description: 'Runs a shell command',
    inputSchema: object({ command: { type: 'string' } }),
  },
  {
    name: 'frobnicate',
    description: 'Does something no policy knows',
    inputSchema: object({ level: { type: 'number' } }),
  },
  {
    name: 'get_report',
    description: 'A report with structured output',
    inputSchema: object({ format: { type: 'string' } }),
    outputSchema: object({ lines: { type: 'number' } }, ['lines']),
  },
  { name: 'secret_admin', description: 'Hidden by the gateway config', inputSchema: object({}) },
  {
    name: 'fetch_slowly',
    description: 'Reports progress, then answers',
    inputSchema: object({ steps: { type: 'number' } }),
  },
];

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

async function answer(
  name: string,
  args: Record<string, unknown>,
  progress: (done: number, total: number) => Promise<void>,
): Promise<CallToolResult> {
  switch (name) {
    case 'read_file':
      return text(`contents of ${String(args.path)}`);
    case 'write_file':
      return text(`wrote ${String(args.content ?? '').length} characters to ${String(args.path)}`);
    case 'run_command':
      return text(`ran ${String(args.command)}`);
    case 'frobnicate':
      return text('frobnicated');
    case 'get_report':
      return { content: [{ type: 'text', text: '{"lines":3}' }], structuredContent: { lines: 3 } };
    case 'secret_admin':
      return text('admin done');
    case 'fetch_slowly': {
      // Slowly indeed: a progress notification read in the same chunk as the result is dropped by
      // the SDK's Client (modelcontextprotocol/typescript-sdk#2580), whoever sends them.
      const steps = Number(args.steps ?? 3);
      for (let done = 1; done <= steps; done += 1) {
        await progress(done, steps);
        await sleep(50);
      }
      return text(`fetched in ${steps} steps`);
    }
    case 'late_tool':
      return text('late');
    default:
      throw new McpError(-32602, `Unknown tool ${name}`);
  }
}

/** The recording server; `record` receives every event, `grow()` adds `late_tool` and announces it. */
export function createRecordingServer(record: (entry: Recorded) => void): {
  server: Server;
  grow(): Promise<void>;
} {
  const tools = [...RECORDING_TOOLS];
  const server = new Server(
    { name: 'recording-upstream', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.oninitialized = () =>
    record({
      event: 'initialized',
      clientInfo: server.getClientVersion(),
      capabilities: server.getClientCapabilities(),
    });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE_SIZE;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args, _meta: meta } = request.params;
    record({ event: 'call', name, arguments: args, meta });
    const token = meta?.progressToken;
    return answer(name, args ?? {}, async (progress, total) => {
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total },
        });
      }
    });
  });
  return {
    server,
    async grow() {
      if (!tools.some((tool) => tool.name === 'late_tool')) {
        tools.push({ name: 'late_tool', description: 'Added later', inputSchema: object({}) });
      }
      await server.sendToolListChanged();
    },
  };
}
