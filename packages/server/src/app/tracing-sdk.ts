import { context, DiagLogLevel, diag, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { disableTracing, enableTracing } from '../foundation/tracing.js';
import { VERSION } from '../foundation/version.js';

/** Where the SDK's own warnings and errors go (a failed export, a setting it ignored). */
export interface TracingLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The SDK reports a failed export as the error's JSON, stack included: its message says enough. */
function briefly(message: string): string {
  try {
    const parsed: unknown = JSON.parse(message);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      return `an export failed: ${String(parsed.message)}`;
    }
  } catch {}
  return message;
}

export interface TracingHandle {
  /** Sends the SDK's warnings and errors to the service's log from now on (level warn). */
  reportTo(log: TracingLog): void;
  /** Exports the spans still buffered. */
  flush(): Promise<void>;
  /** Flushes, then unregisters the provider and turns the service's spans off. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK: spans are batched (OTEL_BSP_*) and exported over OTLP/HTTP to the
 * endpoint of the standard OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression
 * included); sampling follows OTEL_TRACES_SAMPLER; the resource is `service.name`
 * `authority-runtime` and the version, overridden by OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 * Context travels in AsyncLocalStorage; W3C `traceparent` and `baggage` are read and written.
 * Loaded with a dynamic import, so a service without an endpoint never loads the SDK.
 */
export function startTracing(): TracingHandle {
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: 'authority-runtime',
    [ATTR_SERVICE_VERSION]: VERSION,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  enableTracing();
  return {
    reportTo(log) {
      const write = (message: string, ...args: unknown[]) =>
        log.warn(
          args.length === 0 ? {} : { otel: args.map(String).join(' ') },
          `tracing: ${briefly(message)}`,
        );
      diag.setLogger(
        { error: write, warn: write, info: () => {}, debug: () => {}, verbose: () => {} },
        { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
      );
    },
    flush: () => provider.forceFlush(),
    async shutdown() {
      disableTracing();
      await provider.shutdown();
      diag.disable();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
