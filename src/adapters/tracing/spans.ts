import { type Attributes, type Span, type SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { DomainError, messageOf } from "../../domain/errors.ts";

/**
 * Marks a span failed. A DomainError is an expected refusal and is named by its code; anything else
 * by its name, with the exception (and its stack) recorded on the span.
 */
export function markFailed(span: Span, error: unknown): void {
  if (error instanceof DomainError) span.setAttribute(ATTR_ERROR_TYPE, error.code);
  else {
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
    span.recordException(error instanceof Error ? error : messageOf(error));
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
}

export interface SpanShape {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
}

/**
 * Runs `work` in a span of its own, the active one meanwhile (what it calls becomes its children),
 * ended when its answer settles: at once for a plain value, when the promise does for a promise.
 */
export function inSpan<R>(tracer: Tracer, { name, kind, attributes }: SpanShape, work: () => R): R {
  return tracer.startActiveSpan(name, { kind, attributes }, (span) => {
    let result: R;
    try {
      result = work();
    } catch (error) {
      markFailed(span, error);
      span.end();
      throw error;
    }
    if (!(result instanceof Promise)) {
      span.end();
      return result;
    }
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        markFailed(span, error);
        span.end();
        throw error;
      },
    ) as R;
  });
}
