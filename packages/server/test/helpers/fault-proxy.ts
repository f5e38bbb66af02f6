import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request:
 * - `forward`: pass it to the service and its answer back.
 * - `lose-reply`: pass it to the service, wait for the whole answer, then cut the client's
 *   connection without sending it (the service committed; the caller never learns it).
 * - `hang`: read the request and never answer.
 * - `reset`: cut the connection at once, without forwarding.
 * - `{status, body?, headers?}`: answer this itself, without forwarding.
 */
export type FaultAction =
  | 'forward'
  | 'lose-reply'
  | 'hang'
  | 'reset'
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** An answer made from the request's body (a service that answers wrongly on purpose). */
  | { answer: (requestBody: string) => { status: number; body: unknown } };

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  action: FaultAction;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request received, in order, with what was done with it. */
  readonly requests: ProxiedRequest[];
  /** Actions for the next requests, in order; once they are used up, requests are forwarded. */
  plan(...actions: FaultAction[]): void;
  close(): Promise<void>;
}

/**
 * A local HTTP proxy in front of a real service that fails on purpose, as the test plans it: the
 * client under test talks to real sockets and a real service, never to a mock of itself.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  let planned: FaultAction[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const action = planned.shift() ?? 'forward';
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: body.toString('utf8'),
        action,
      });
      if (action === 'hang') return;
      if (action === 'reset') {
        req.socket.destroy();
        return;
      }
      if (typeof action === 'object' && 'answer' in action) {
        const made = action.answer(body.toString('utf8'));
        res.writeHead(made.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(made.body));
        return;
      }
      if (typeof action === 'object') {
        const text = action.body === undefined ? '' : JSON.stringify(action.body);
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(text);
        return;
      }
      const forwarded = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            if (action === 'lose-reply') {
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(parts));
          });
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    plan(...actions) {
      planned = [...actions];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
