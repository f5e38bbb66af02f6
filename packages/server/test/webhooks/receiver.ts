import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, as it arrived on the wire. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The status answered, or `hang` when the request was held open. */
  answered: number | 'hang';
}

/** What to answer: a status code, or `hang` to hold the request open without answering. */
export type Responder = (request: { path: string; count: number }) => number | 'hang';

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  base: string;
  received: Received[];
  /** Changes the answer from now on. */
  respond(responder: Responder): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (a test peer, as contract §12 allows). */
export async function startReceiver(responder: Responder = () => 204): Promise<Receiver> {
  let respond = responder;
  const received: Received[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const answered = respond({ path, count: received.length });
      received.push({
        path,
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        answered,
      });
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (answered === 'hang') held.push(res);
      else {
        // Redirects point elsewhere; the service must not follow them.
        const redirect = answered >= 300 && answered < 400;
        res.writeHead(answered, redirect ? { location: 'http://127.0.0.1:1/elsewhere' } : {}).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    respond(next) {
      respond = next;
    },
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
