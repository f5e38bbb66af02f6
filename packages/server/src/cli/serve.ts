import { Redis } from 'ioredis';
import { buildServer } from '../app/build-server.js';
import { type Config, ConfigError } from '../config/config.js';
import { systemClock } from '../foundation/clock.js';
import { traceFields, tracingRequested } from '../foundation/tracing.js';
import { createTenantService } from '../tenancy/tenant-service.js';
import { type GlobalFlags, openContext } from './context.js';
import { checkedMasterKey } from './master-key-check.js';

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * A socket that cannot be opened is a setting at fault (exit 2, naming it): a host that does not
 * resolve or is not this machine's, a port in use or not allowed.
 */
function listenError(error: unknown, flags: GlobalFlags, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const host = flags.host ? '--host' : 'HOST';
  const port = flags.port ? '--port' : 'PORT';
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(host, `does not resolve to an address (${config.host}: ${code})`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(host, `is not an address of this machine (${config.host}: ${code})`);
    case 'EADDRINUSE':
      return new ConfigError(port, `is in use on ${config.host} (${config.port}: ${code})`);
    case 'EACCES':
      return new ConfigError(port, `may not be listened on by this user (${config.port}: ${code})`);
    default:
      return error;
  }
}

/** `authority serve`: migrate when embedded, listen, print the demo credentials on a first start. */
export async function serve(flags: GlobalFlags): Promise<void> {
  const { config, storage } = openContext(flags, 'server');
  // Traces only when an OTLP endpoint is configured; otherwise the SDK is never loaded.
  const tracing = tracingRequested(process.env)
    ? (await import('../app/tracing-sdk.js')).startTracing()
    : undefined;
  // The embedded default migrates itself; in server mode `authority migrate` is a deployment step,
  // but applying pending migrations here too keeps a single-instance set-up to one command.
  await storage.migrate();
  const masterKey = await checkedMasterKey(config, storage);

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        lazyConnect: false,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        // Rate-limit counters are on every request's path: a Redis that hangs must not hang requests
        // (the limiter then counts in process until Redis answers again).
        commandTimeout: 1_000,
      })
    : undefined;
  redis?.on('error', () => {});

  const app = await buildServer({
    config,
    storage,
    clock: systemClock,
    masterKey,
    redis,
    // Log lines carry the active span's traceId and spanId when tracing is on.
    logger: { level: config.logLevel, ...(tracing ? { mixin: traceFields } : {}) },
  });
  // A failed export or a setting the SDK ignored is a warning in the service's log, not silence.
  tracing?.reportTo(app.log);
  if (config.masterKey === undefined) {
    app.log.warn(
      'AUTHORITY_MASTER_KEY is not set: using the generated key in DATA_DIR/master.key; back it up with the database',
    );
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw listenError(error, flags, config);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const base = `http://${displayHost(config.host)}:${port}`;
  // The address the service names itself by (approval URLs, the physical tokens' iss, log origins):
  // where users should reach it, so that a console session and a verifier's issuer match.
  // Its default names the configured port, which is 0 when the system picked one.
  const publicBase =
    config.publicBaseUrl === `http://localhost:${config.port}`
      ? `http://localhost:${port}`
      : config.publicBaseUrl;

  const lines = [
    `Authority Runtime listening on ${base} (${config.mode} mode, API reference at ${publicBase}/docs)`,
    `Web console at ${publicBase}/console/ (sign in with a console user: npm run authority -- users create --help)`,
  ];
  if (config.mode === 'embedded' || flags.demo) {
    const demo = await createTenantService(storage, systemClock).bootstrapDemo();
    if (demo) {
      lines.push(
        '',
        `Created tenant "${demo.tenant.id}" (plan ${demo.tenant.plan}) with an owner API key.`,
        `Owner API key (shown once; store it now): ${demo.ownerKey.key}`,
        'Try it:',
        `  curl -s ${publicBase}/tenant -H "Authorization: Bearer ${demo.ownerKey.key}" -H "x-tenant-id: ${demo.tenant.id}"`,
        '',
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await app.close();
    redis?.disconnect();
    await storage.close();
    // A collector that is down or hangs costs the spans still buffered, never a clean stop.
    await tracing?.shutdown().catch((error: unknown) => {
      app.log.warn({ err: error }, 'tracing: the spans still buffered could not be exported at shutdown');
    });
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
