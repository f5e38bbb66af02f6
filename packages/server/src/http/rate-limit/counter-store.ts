import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../foundation/clock.js';
import { WINDOW_MS } from './limits.js';

export interface Hit {
  count: number;
  resetInMs: number;
}

/**
 * Fixed-window counters. A window starts with the first hit on a key and lasts WINDOW_MS; every
 * hit, refused ones included, adds one.
 */
export interface CounterStore {
  /** Adds one hit to each key and returns the counts, in the order of the keys. */
  hit(keys: readonly string[]): Promise<Hit[]>;
}

/** Counters in this process. The LRU bound caps memory when many addresses come and go. */
export function createMemoryCounterStore(clock: Clock, maxKeys = 200_000): CounterStore {
  const windows = new LRUCache<string, { count: number; endsAt: number }>({ max: maxKeys });
  return {
    async hit(keys) {
      const now = clock();
      return keys.map((key) => {
        let window = windows.get(key);
        if (window === undefined || window.endsAt <= now) {
          window = { count: 0, endsAt: now + WINDOW_MS };
          windows.set(key, window);
        }
        window.count += 1;
        return { count: window.count, resetInMs: window.endsAt - now };
      });
    },
  };
}

/**
 * INCR every key, start its window on the first hit, and return count and time left for each: one
 * round trip however many keys, atomic on the server. A key that somehow lost its expiry gets one.
 */
const HIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out
`;
const HIT_SCRIPT_SHA = createHash('sha1').update(HIT_SCRIPT).digest('hex');

function parseReply(reply: unknown, expected: number): Hit[] {
  if (!Array.isArray(reply) || reply.length !== expected * 2) throw new Error('unexpected counter reply');
  const hits: Hit[] = [];
  for (let index = 0; index < reply.length; index += 2) {
    const count = Number(reply[index]);
    const resetInMs = Number(reply[index + 1]);
    if (!Number.isFinite(count) || !Number.isFinite(resetInMs)) throw new Error('unexpected counter reply');
    hits.push({ count, resetInMs });
  }
  return hits;
}

/**
 * Counters in Redis, shared by every instance that uses the same Redis and prefix. The window is
 * the key's expiry on the Redis server, so instances need not agree on the time. When Redis fails
 * the hit is counted by `fallback` (in process) rather than failing the request: the service keeps
 * answering, each instance limiting on its own until Redis is back.
 */
export function createRedisCounterStore(options: {
  redis: Redis;
  prefix: string;
  fallback: CounterStore;
  onError: (error: unknown) => void;
}): CounterStore {
  const { redis, prefix, fallback } = options;
  async function run(keys: string[]): Promise<unknown> {
    try {
      return await redis.evalsha(HIT_SCRIPT_SHA, keys.length, ...keys, WINDOW_MS);
    } catch (error) {
      // First use on this Redis (or after SCRIPT FLUSH): send the script itself once.
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return redis.eval(HIT_SCRIPT, keys.length, ...keys, WINDOW_MS);
      }
      throw error;
    }
  }
  return {
    async hit(keys) {
      try {
        return parseReply(await run(keys.map((key) => `${prefix}rl:${key}`)), keys.length);
      } catch (error) {
        options.onError(error);
        return fallback.hit(keys);
      }
    },
  };
}

/** Failures of Redis are reported at most this often (every request would otherwise log one). */
const ERROR_REPORT_INTERVAL_MS = 10_000;

/** The counters of a server: in Redis when it has a client (REDIS_URL), else in process. */
export function counterStore(
  deps: { clock: Clock; redis?: Redis | undefined; config: { redisKeyPrefix: string } },
  onError: (error: unknown) => void,
): CounterStore {
  const memory = createMemoryCounterStore(deps.clock);
  if (deps.redis === undefined) return memory;
  let lastReport = Number.NEGATIVE_INFINITY;
  return createRedisCounterStore({
    redis: deps.redis,
    prefix: deps.config.redisKeyPrefix,
    fallback: memory,
    onError(error) {
      const now = deps.clock();
      if (now - lastReport < ERROR_REPORT_INTERVAL_MS) return;
      lastReport = now;
      onError(error);
    },
  });
}
