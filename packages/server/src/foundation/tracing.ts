import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { VERSION } from './version.js';

/**
 * The service's spans, through the OpenTelemetry API only. Until `enableTracing` is called (the
 * SDK is started, app/tracing-sdk.ts, when OTEL_EXPORTER_OTLP_ENDPOINT is set) every helper here
 * is a boolean test and a direct call: no span objects, no context switches.
 */
let tracer: Tracer | undefined;

/**
 * Whether the environment asks for traces: an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, or the
 * traces-only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), OTEL_SDK_DISABLED not `true` and
 * OTEL_TRACES_EXPORTER not `none` (config.ts takes only `otlp` or `none`, as the SDK compares them).
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Called once the SDK's provider is registered globally. */
export function enableTracing(): void {
  tracer = trace.getTracer('authority-runtime', VERSION);
}

/** Tests that start and stop the SDK in one process turn the helpers back off. */
export function disableTracing(): void {
  tracer = undefined;
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  links?: Link[];
  /** The parent (default: the active context). */
  parent?: Context;
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
}

/** Runs `work` inside a span named `name` when tracing is on; otherwise just runs it. */
export function withSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span?: Span) => Promise<T>,
): Promise<T> {
  if (tracer === undefined) return work();
  return tracer.startActiveSpan(name, options, options.parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The synchronous form (gates). */
export function withSyncSpan<T>(name: string, attributes: Attributes, work: (span?: Span) => T): T {
  if (tracer === undefined) return work();
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The active context, to hand to work that runs later on behalf of this caller (group commit). */
export function activeContext(): Context | undefined {
  return tracer === undefined ? undefined : context.active();
}

/** A link to the span active in `ctx`, if any. */
export function linkTo(ctx: Context | undefined): Link | undefined {
  const spanContext = ctx === undefined ? undefined : trace.getSpanContext(ctx);
  return spanContext === undefined ? undefined : { context: spanContext };
}

/** Outbound headers with `traceparent` (and `tracestate`) of the active span added when tracing is on. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (tracer === undefined) return headers;
  const carrier = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** A server span for an inbound request, continuing the caller's `traceparent` when it sent one. */
export function startServerSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Attributes,
): { span: Span; context: Context } | undefined {
  if (tracer === undefined) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** `traceId` and `spanId` of the active span for log lines; empty when tracing is off or no span is active. */
export function traceFields(): { traceId?: string; spanId?: string } {
  if (tracer === undefined) return {};
  const spanContext = trace.getSpanContext(context.active());
  if (spanContext === undefined) return {};
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

export { SpanKind, SpanStatusCode };
