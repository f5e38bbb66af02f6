import { context, type Span } from '@opentelemetry/api';
import { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import { SpanStatusCode, startServerSpan, tracingEnabled } from '../foundation/tracing.js';

/**
 * Fastify's request logging, except that its `incoming request` line is left to `traceRequests`:
 * Fastify writes it before the first hook, outside the request's span, so it could not carry the
 * trace id. Used only while tracing is on (`requestLogController`).
 */
class SpanLogController extends LogController {
  override incomingRequest(): void {}
}

/**
 * The request as log lines show it (Fastify's `req` serializer, but for the URL): the path as
 * received and the query's parameter names, never their values, since a client may put a
 * credential there (`?api_key=…`) and logs never hold one.
 */
export function loggedRequest(request: FastifyRequest): Record<string, unknown> {
  // The URL before the `/v1` prefix was stripped for routing.
  const [path = '/', query] = request.originalUrl.split(/\?(.*)/s, 2);
  const names = query === undefined ? [] : [...new URLSearchParams(query).keys()];
  return {
    method: request.method,
    url: names.length === 0 ? path : `${path}?${names.map((name) => `${name}=[redacted]`).join('&')}`,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Fastify's `logController` option: the one for traced requests while tracing is on, else Fastify's own. */
export function requestLogController(): LogController | undefined {
  return tracingEnabled() ? new SpanLogController() : undefined;
}

/**
 * One server span per request when tracing is on (registered before any other hook, so that
 * authentication, the route and everything they call run inside it): it continues an inbound W3C
 * `traceparent`, is named `METHOD /route/template` once routed, and carries the status code and the
 * path as received (`/v1` prefix included). Its first act inside the span is the request's
 * `incoming request` log line, which then carries `traceId` and `spanId`. When tracing is off no
 * hook is added.
 */
export function traceRequests(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  const logIncoming = (request: FastifyRequest) => request.log.info({ req: request }, 'incoming request');
  app.addHook('onRequest', (request, _reply, done) => {
    const started = startServerSpan(`${request.method}`, request.headers, {
      'http.request.method': request.method,
      'url.path': request.originalUrl.split('?')[0] ?? '/',
      'authority.request_id': request.id,
    });
    if (started === undefined) {
      logIncoming(request);
      done();
      return;
    }
    spans.set(request, started.span);
    // The rest of the request's lifecycle continues from here, inside the span's context.
    context.with(started.context, () => {
      logIncoming(request);
      done();
    });
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span !== undefined) {
      const route = request.routeOptions.url;
      if (route !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
