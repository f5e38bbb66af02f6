import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** The answer headers a browser client may read (request id, backoff and limits, the methods of a 405). */
const EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'allow',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];
/** The request headers a browser client may send: credentials, tenant, idempotency, request id. */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-api-key',
  'x-tenant-id',
  'x-portal-session-id',
  'x-request-id',
  'idempotency-key',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * CORS for browser clients on the exact origins of `CORS_ORIGINS` (contract §13.4). Registered
 * before authentication, so that error answers (401, 403, 429) carry the headers too and a browser
 * can read them. Every `OPTIONS` request is answered here as a preflight (204), never 404; an
 * origin not in the list gets no `access-control-allow-origin` and the browser refuses the call.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  await app.register(cors, {
    origin: [...origins],
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // A bare OPTIONS (no Origin) is answered 204 too rather than with a plain-text 400.
    strictPreflight: false,
  });
}

/** The catch-all `OPTIONS *` route the CORS plugin adds to answer preflights. */
export const isCorsPreflightRoute = (method: string | readonly string[], url: string): boolean =>
  method === 'OPTIONS' && url === '*';
