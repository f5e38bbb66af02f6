import { context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SpanStatusCode, startServerSpan, tracingEnabled } from '../foundation/tracing.js';

/**
 * One server span per request when tracing is on (registered before any other hook, so that
 * authentication, the route and everything they call run inside it): it continues an inbound W3C
 * `traceparent`, is named `METHOD /route/template` once routed, and carries the status code. When
 * tracing is off no hook is added.
 */
export function traceRequests(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const started = startServerSpan(`${request.method}`, request.headers, {
      'http.request.method': request.method,
      'url.path': request.url.split('?')[0] ?? '/',
      'authority.request_id': request.id,
    });
    if (started === undefined) {
      done();
      return;
    }
    spans.set(request, started.span);
    // The rest of the request's lifecycle continues from here, inside the span's context.
    context.with(started.context, done);
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
