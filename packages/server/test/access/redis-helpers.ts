import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { type App, buildServer } from '../../src/app/build-server.js';
import { loadConfig } from '../../src/config/config.js';
import type { Clock } from '../../src/foundation/clock.js';
import type { Storage } from '../../src/storage/database.js';
import { TEST_MASTER_KEY } from '../helpers/app.js';

/** The Redis of the development and CI machines (CI exports TEST_REDIS_URL). */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of its own per test run, so parallel runs never share counters. */
export function uniquePrefix(): string {
  return `authority-test:${randomBytes(6).toString('hex')}:`;
}

export async function connectRedis(url = REDIS_URL): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  await redis.ping();
  return redis;
}

/** Deletes every key under the prefix (they would expire within a minute anyway). */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** A server over an existing storage, with the given Redis client and environment. */
export async function serverOn(
  storage: Storage,
  options: { clock: Clock; redis?: Redis; env?: Record<string, string> },
): Promise<App> {
  const app = await buildServer({
    config: loadConfig({ ...options.env }),
    storage,
    clock: options.clock,
    masterKey: TEST_MASTER_KEY,
    redis: options.redis,
    backgroundJobs: false,
  });
  await app.ready();
  return app;
}
