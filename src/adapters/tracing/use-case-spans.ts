import { SpanKind, type Tracer } from "@opentelemetry/api";
import { ATTR_CODE_FUNCTION_NAME } from "@opentelemetry/semantic-conventions";
import { inSpan } from "./spans.ts";

/**
 * The use cases as bound by makeUseCases, each call in a span named after the use case (`placeOrder`),
 * under the request's span: the application knows nothing of tracing. A use case that answers with
 * a stream (an export) is timed until it answers; the statements read while the stream is consumed
 * come after its span.
 */
export function traceUseCases<T extends object>(useCases: T, tracer: Tracer): T {
  const traced = Object.entries(useCases).map(([name, value]) => {
    if (typeof value !== "function") return [name, value];
    const shape = { name, kind: SpanKind.INTERNAL, attributes: { [ATTR_CODE_FUNCTION_NAME]: name } };
    return [name, (...args: unknown[]) => inSpan(tracer, shape, () => value(...args))];
  });
  return Object.fromEntries(traced) as T;
}
