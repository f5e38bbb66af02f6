import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import type { Config } from '../../config/config.js';
import { AppError } from '../../errors/app-error.js';
import { VERSION } from '../../foundation/version.js';
import type { Storage } from '../../storage/database.js';
import { secretsEqual } from '../../tenancy/api-key-secret.js';
import { PUBLIC } from '../access.js';
import type { HttpMetrics } from '../metrics.js';
import { wireSchema } from '../wire-schema.js';

const READY_TIMEOUT_MS = 2_000;

function withTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, timeout]).then(
    () => clearTimeout(timer),
    (error: unknown) => {
      clearTimeout(timer);
      throw error;
    },
  );
}

async function check(work: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await withTimeout(work(), READY_TIMEOUT_MS);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox<{
  config: Config;
  storage: Storage;
  redis: Redis | undefined;
  metrics: HttpMetrics;
}> = async (app, { config, storage, redis, metrics }) => {
  const startedAt = Date.now();

  app.get(
    '/health',
    {
      config: { access: PUBLIC },
      schema: wireSchema(WIRE_ROUTES.health),
    },
    async () => ({
      status: 'ok' as const,
      version: VERSION,
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    }),
  );

  app.get(
    '/ready',
    {
      config: { access: PUBLIC },
      schema: wireSchema(WIRE_ROUTES.ready),
    },
    async (_request, reply) => {
      const database = await check(() => storage.ping());
      const checks: { database: 'ok' | 'unavailable'; redis?: 'ok' | 'unavailable' } = { database };
      if (redis) checks.redis = await check(() => redis.ping());
      const ready = Object.values(checks).every((v) => v === 'ok');
      return reply.code(ready ? 200 : 503).send({ ready, checks });
    },
  );

  app.get(
    '/metrics',
    {
      config: { access: PUBLIC },
      schema: wireSchema(WIRE_ROUTES.metrics),
    },
    async (request, reply) => {
      if (config.metricsToken !== undefined) {
        const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
        if (!match?.[1] || !secretsEqual(match[1], config.metricsToken)) {
          throw new AppError('UNAUTHORIZED', 'A valid metrics token is required', {
            reason: 'invalid_metrics_token',
          });
        }
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );

  app.get('/openapi.json', { config: { access: PUBLIC }, schema: { hide: true } }, async () => app.swagger());
};
