import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthorityTokenVerification,
  InMemoryNonceStore,
  remoteJwks,
  verifyAuthorityToken,
} from '@authority-runtime/sdk';

/** One request the receiver got, with the verdict of its own token check. */
export interface ReceivedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  verdict: AuthorityTokenVerification | undefined;
}

export interface TokenReceiver {
  /** `http://127.0.0.1:<port>` */
  base: string;
  received: ReceivedCall[];
  /** Holds every later request open without answering (a receiver that hangs). */
  hang(): void;
  /** Answers every later POST with this status after verifying (a receiver in trouble). */
  failWith(status: number): void;
  /** Answers every later POST this many milliseconds after verifying (a slow action). */
  slowBy(ms: number): void;
  close(): Promise<void>;
}

/**
 * A system receiving executions from the http connector, written as the guide in docs/connectors.md
 * tells a receiver to be: it verifies the bearer token with the SDK's verifyAuthorityToken against
 * the service's JWKS, bound to its own adapter id (the connector id) and target, with its own nonce
 * store, and acts only on a valid token. A GET answers 204 (its health endpoint).
 */
export async function startTokenReceiver(options: {
  jwksUrl: string;
  tenantId: string;
  /** Set once the connector exists: the receiver's adapterId is the connector id. */
  adapterId: () => string;
  targetSystem: string;
  clock: () => number;
}): Promise<TokenReceiver> {
  const jwks = remoteJwks(options.jwksUrl, { clock: options.clock });
  const nonceStore = new InMemoryNonceStore({ clock: options.clock });
  const received: ReceivedCall[] = [];
  const held: http.ServerResponse[] = [];
  let hanging = false;
  let failStatus: number | undefined;
  let slowMs = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: ReceivedCall = {
        method: req.method ?? '',
        path: req.url ?? '/',
        headers: req.headers,
        body: text === '' ? null : JSON.parse(text),
        verdict: undefined,
      };
      received.push(call);
      if (hanging) {
        held.push(res);
        return;
      }
      if (req.method === 'GET') {
        res.writeHead(204).end();
        return;
      }
      const header = req.headers.authorization ?? '';
      const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      call.verdict = await verifyAuthorityToken(token, {
        jwks,
        nonceStore,
        expected: {
          tenantId: options.tenantId,
          adapterId: options.adapterId(),
          targetSystem: options.targetSystem,
        },
        clock: options.clock,
      });
      if (!call.verdict.valid) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ reason: call.verdict.reason }));
        return;
      }
      const status = failStatus ?? 200;
      if (slowMs > 0) await new Promise((resolve) => setTimeout(resolve, slowMs));
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ accepted: status === 200, intentId: call.verdict.claims.intentId }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    hang() {
      hanging = true;
    },
    failWith(status) {
      failStatus = status;
    },
    slowBy(ms) {
      slowMs = ms;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
