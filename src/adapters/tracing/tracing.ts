import { DiagLogLevel, type Tracer, context, diag, propagation, trace } from "@opentelemetry/api";
import type { Sampler } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { Logger } from "../../application/ports/system.ts";
import { messageOf } from "../../domain/errors.ts";
import { within } from "../within.ts";

export interface TracingSettings {
  /** Where the spans are sent over OTLP/HTTP (JSON): the collector's `…/v1/traces`. */
  tracesUrl: string;
  /** The resource's `service.name` (OTEL_SERVICE_NAME, else storefront). */
  serviceName: string;
  /** OTEL_TRACES_SAMPLER and its argument: the share of new traces kept, and whether a caller's decision (its traceparent) is followed instead. */
  sampler: { ratio: number; parentBased: boolean };
}

export interface Tracing {
  tracer: Tracer;
  /**
   * Exports what is still queued, then stops: the last spans of a stopping shop are not lost. A
   * collector away, or slower than FLUSH_WAIT_MS, loses them (logged as `tracing.problem`); the stop
   * goes on, and never fails for it.
   */
  shutdown(): Promise<void>;
}

/** How long a stopping shop waits for the collector to take its last spans. */
const FLUSH_WAIT_MS = 2_000;

/** Longest attribute value kept: a statement's text past it is cut (a bulk insert's placeholders). */
const ATTRIBUTE_LENGTH_LIMIT = 4_096;

/**
 * The SDK, loaded only when tracing is on: some 10 MB and a few hundred milliseconds of start that a
 * shop without a collector never pays.
 */
const loadSdk = () =>
  Promise.all([
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
  ]);

function samplerOf(sdk: typeof import("@opentelemetry/sdk-trace"), { ratio, parentBased }: TracingSettings["sampler"]): Sampler {
  const root = ratio >= 1 ? new sdk.AlwaysOnSampler() : ratio <= 0 ? new sdk.AlwaysOffSampler() : new sdk.TraceIdRatioBasedSampler(ratio);
  return parentBased ? new sdk.ParentBasedSampler({ root }) : root;
}

/**
 * OpenTelemetry for this process: spans batched and sent to the collector, the active span carried
 * across `await`s (AsyncLocalStorage), and W3C `traceparent` read from callers. Registered as the
 * API's globals, which only the composition root calls: with OTEL_EXPORTER_OTLP_ENDPOINT unset
 * nothing of this is loaded and no span is ever made. The SDK's own complaints (a collector that
 * does not answer) go to the log as warnings.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }, resources, sdk] = await loadSdk();
  diag.setLogger(
    {
      error: (message) => logger.warn("tracing.problem", { message }),
      warn: (message) => logger.warn("tracing.problem", { message }),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new sdk.TracerProvider({
    // The host tells instances apart (a container's id); OTEL_RESOURCE_ATTRIBUTES is read from the
    // environment; the service's name is ours to say.
    resource: resources
      .defaultResource()
      .merge(resources.detectResources({ detectors: [resources.hostDetector, resources.envDetector] }))
      .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
    sampler: samplerOf(sdk, settings.sampler),
    spanLimits: { attributeValueLengthLimit: ATTRIBUTE_LENGTH_LIMIT },
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: settings.tracesUrl }) })],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    tracer: provider.getTracer("storefront"),
    async shutdown() {
      // A collector away, or one that does not answer, made a clean stop exit 1 (found by an audit).
      await within(provider.shutdown(), FLUSH_WAIT_MS).catch((error: unknown) =>
        logger.warn("tracing.problem", { message: `the last spans were not sent: ${messageOf(error)}` }),
      );
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}
