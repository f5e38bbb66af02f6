import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { disableTracing, enableTracing } from '../foundation/tracing.js';
import { VERSION } from '../foundation/version.js';

export interface TracingHandle {
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
    flush: () => provider.forceFlush(),
    async shutdown() {
      disableTracing();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
