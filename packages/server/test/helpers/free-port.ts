import net from 'node:net';

/**
 * A port free on 127.0.0.1 right now, for a server whose PUBLIC_BASE_URL must name the address it
 * will listen on before it listens (physical tokens carry it as `iss`).
 */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
