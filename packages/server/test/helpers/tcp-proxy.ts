import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Cuts every open connection and refuses new ones: "the database went away". */
  cut(): Promise<void>;
  /** Accepts connections again after a cut. */
  resume(): void;
  /**
   * A silent outage: stops forwarding in both directions without closing anything, as when the
   * network drops packets. Open connections stay open and hear nothing; new ones are accepted and
   * hear nothing either (no upstream connection is made). What was sent meanwhile waits in the
   * socket buffers.
   */
  drop(): void;
  /** Ends a silent outage: forwarding resumes, buffered bytes included; waiting connections go upstream. */
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
}

/** A local TCP proxy in front of a real server, so a test can take the database away without stopping it. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let refusing = false;
  let dropping = false;

  const destroy = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  const forward = (pair: Pair) => {
    if (pair.upstream === undefined) {
      const upstream = net.connect(targetPort, targetHost);
      upstream.on('error', () => destroy(pair)).on('close', () => destroy(pair));
      pair.upstream = upstream;
    }
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };
  const hold = (pair: Pair) => {
    pair.client.pause();
    if (pair.upstream !== undefined) {
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.upstream.pause();
    }
  };

  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => destroy(pair)).on('close', () => destroy(pair));
    if (dropping) hold(pair);
    else forward(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy did not bind');
  return {
    port: address.port,
    async cut() {
      refusing = true;
      for (const pair of pairs) destroy(pair);
    },
    resume() {
      refusing = false;
    },
    drop() {
      dropping = true;
      for (const pair of pairs) hold(pair);
    },
    restore() {
      dropping = false;
      for (const pair of pairs) forward(pair);
    },
    async close() {
      refusing = true;
      for (const pair of pairs) destroy(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
