import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The one path of the Streamable HTTP endpoint (contract §11). */
export const MCP_PATH = '/mcp';
/** Sessions at once; a new one beyond this is answered 503. */
const MAX_SESSIONS = 1_000;
/** A session with no open request and no activity for this long is closed. */
const IDLE_MS = 30 * 60_000;
/** 127.0.0.0/8 written as a URL writes it (the URL parser normalizes the other IPv4 forms). */
const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** A `Host` or `Origin` hostname (as `new URL` gives it) that names the loopback. */
function namesLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || IPV4_LOOPBACK.test(hostname);
}

/** An address to listen on that is the loopback: every 127.x.y.z, `::1`, `localhost`. */
function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    IPV4_LOOPBACK.test(bare) ||
    IPV4_LOOPBACK.test(bare.replace(/^::ffff:/, ''))
  );
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  open: number;
  lastActive: number;
}

export interface HttpListener {
  /** `http://HOST:PORT/mcp`, with the port actually bound. */
  url: string;
  /** Every open session's server (to announce a tool list change). */
  servers(): Server[];
  close(): Promise<void>;
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function hostnameOf(value: string | undefined, withScheme: boolean): string | undefined {
  if (value === undefined) return undefined;
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding and cross-site protection for a gateway bound to loopback: the `Host` header must
 * name the loopback, and so must an `Origin` header when a browser sends one (the MCP transport
 * specification asks servers to validate `Origin`).
 */
function localRequestProblem(req: http.IncomingMessage): string | undefined {
  const host = hostnameOf(req.headers.host, false);
  if (host === undefined || !namesLoopback(host)) return `Invalid Host: ${req.headers.host ?? '(none)'}`;
  const origin = req.headers.origin;
  if (origin !== undefined && !namesLoopback(hostnameOf(origin, true) ?? '')) {
    return `Invalid Origin: ${origin}`;
  }
  return undefined;
}

/**
 * The gateway towards agents over Streamable HTTP at `http://HOST:PORT/mcp`: one stateful session
 * (and one MCP server from `createServer`) per `initialize`, addressed by `Mcp-Session-Id`,
 * with the SDK's transport doing the protocol (POST, the GET event stream, DELETE).
 */
export async function listenStreamableHttp(options: {
  host: string;
  port: number;
  createServer: () => Server;
}): Promise<HttpListener> {
  const sessions = new Map<string, Session>();
  const loopback = isLoopbackAddress(options.host);

  const track = (session: Session, res: http.ServerResponse) => {
    session.open += 1;
    session.lastActive = Date.now();
    res.once('close', () => {
      session.open -= 1;
      session.lastActive = Date.now();
    });
  };

  const startSession = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (sessions.size >= MAX_SESSIONS) {
      jsonRpcError(res, 503, -32000, 'Too many open sessions');
      return;
    }
    const server = options.createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        const session: Session = { transport, server, open: 0, lastActive: Date.now() };
        sessions.set(id, session);
        track(session, res);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize request: the transport answered 400 and no session was made.
    if (transport.sessionId === undefined) await server.close();
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://gateway').pathname !== MCP_PATH) {
      jsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    const problem = loopback ? localRequestProblem(req) : undefined;
    if (problem !== undefined) {
      jsonRpcError(res, 403, -32000, problem);
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined) {
      if (req.method === 'POST') await startSession(req, res);
      else jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    const session = sessions.get(sessionId);
    if (!session) {
      jsonRpcError(res, 404, -32001, 'Session not found');
      return;
    }
    track(session, res);
    await session.transport.handleRequest(req, res);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const session of sessions.values()) {
      if (session.open === 0 && session.lastActive < cutoff) session.transport.close().catch(() => {});
    }
  }, 60_000);
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, options.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}${MCP_PATH}`,
    servers: () => [...sessions.values()].map((session) => session.server),
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((session) => session.server.close().catch(() => {})));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
