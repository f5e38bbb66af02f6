import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { AppError } from '../../errors/app-error.js';
import type { CounterStore } from './counter-store.js';
import {
  addressBucket,
  isExceeded,
  type LimitCount,
  type LimitScope,
  type LimitSpec,
  mostConstraining,
  rateLimitHeaders,
  secondsUntilReset,
} from './limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The limits this request was counted against (null until the first). */
    rateLimits: LimitCount[] | null;
  }
}

/** `/health` and `/ready` are neither limited nor labelled (contract section 3). */
const UNLIMITED_ROUTES = new Set(['/health', '/ready']);

export function isUnlimitedRoute(url: string | undefined): boolean {
  return url !== undefined && UNLIMITED_ROUTES.has(url);
}

export interface RateLimiter {
  /** The per-address limit (`RATE_LIMIT_PER_IP`), or undefined when it is 0 (disabled). */
  addressLimit(address: string): LimitSpec | undefined;
  /**
   * Counts the request against the limits and sets the `x-ratelimit-*` headers for the most
   * constraining limit counted so far. Returns that limit when it is exceeded; the caller rejects
   * at its place in the order of checks.
   */
  count(
    request: FastifyRequest,
    reply: FastifyReply,
    specs: readonly LimitSpec[],
  ): Promise<LimitCount | undefined>;
  /** Counts and, when a limit is exceeded, throws 429 at once. */
  enforce(request: FastifyRequest, reply: FastifyReply, specs: readonly LimitSpec[]): Promise<void>;
  /** Throws 429 RATE_LIMITED with `retry-after` for an exceeded limit. */
  reject(reply: FastifyReply, exceeded: LimitCount): never;
}

export function createRateLimiter(options: {
  store: CounterStore;
  rateLimitPerIp: number;
  registry: Registry;
}): RateLimiter {
  const { store, rateLimitPerIp } = options;
  const rejections = new Counter({
    name: 'authority_rate_limited_total',
    help: 'Requests refused with 429 by limit (key, address, login_address, login_account), never by tenant',
    labelNames: ['limit'] as const,
    registers: [options.registry],
  });
  for (const limit of ['key', 'address', 'login_address', 'login_account'] satisfies LimitScope[]) {
    rejections.inc({ limit }, 0);
  }

  const limiter: RateLimiter = {
    addressLimit(address) {
      if (rateLimitPerIp === 0) return undefined;
      return { scope: 'address', key: `address:${addressBucket(address)}`, limit: rateLimitPerIp };
    },

    async count(request, reply, specs) {
      if (specs.length === 0) return undefined;
      const hits = await store.hit(specs.map((spec) => spec.key));
      const counted = request.rateLimits ?? [];
      specs.forEach((spec, index) => {
        const hit = hits[index];
        if (hit) counted.push({ scope: spec.scope, limit: spec.limit, ...hit });
      });
      request.rateLimits = counted;
      const binding = mostConstraining(counted);
      if (binding === undefined) return undefined;
      reply.headers(rateLimitHeaders(binding));
      return isExceeded(binding) ? binding : undefined;
    },

    async enforce(request, reply, specs) {
      const exceeded = await limiter.count(request, reply, specs);
      if (exceeded) limiter.reject(reply, exceeded);
    },

    reject(reply, exceeded) {
      const retryAfter = secondsUntilReset(exceeded);
      rejections.inc({ limit: exceeded.scope satisfies LimitScope });
      reply.header('retry-after', String(retryAfter));
      throw new AppError('RATE_LIMITED', `Rate limit exceeded; retry in ${retryAfter} s`, {
        limit: exceeded.scope,
        retryAfterSeconds: retryAfter,
      });
    },
  };
  return limiter;
}
