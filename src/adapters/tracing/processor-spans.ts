import { SpanKind, type Tracer } from "@opentelemetry/api";
import { ATTR_CODE_FUNCTION_NAME } from "@opentelemetry/semantic-conventions";
import type { PaymentGateway, TaxCalculator } from "../../application/ports/payments.ts";
import { inSpan } from "./spans.ts";

/** The calls of each port, listed so that a call added to a port and not here fails to compile. */
const GATEWAY_CALLS: Record<keyof PaymentGateway, true> = { createIntent: true, confirmIntent: true, cancelIntent: true, retrieveIntent: true, refund: true };
const TAX_CALLS: Record<keyof TaxCalculator, true> = { calculate: true };

/** `peer.service` (incubating semantic conventions): the processor answering, as trace views group calls by it. */
const ATTR_PEER_SERVICE = "peer.service";

function traceCalls<T extends object>(port: T, calls: Record<keyof T, true>, portName: string, tracer: Tracer, processor: string): T {
  const traced = Object.keys(calls).map((call) => {
    const method = port[call as keyof T] as (...args: unknown[]) => unknown;
    const shape = { name: `${portName}.${call}`, kind: SpanKind.CLIENT, attributes: { [ATTR_CODE_FUNCTION_NAME]: call, [ATTR_PEER_SERVICE]: processor } };
    return [call, (...args: unknown[]) => inSpan(tracer, shape, () => method.apply(port, args))];
  });
  return Object.fromEntries(traced) as T;
}

/** Every call to the processor in a client span (`PaymentGateway.createIntent`, `TaxCalculator.calculate`), Stripe's and the fake's alike. */
export function traceProcessor(processor: PaymentGateway & TaxCalculator, tracer: Tracer, name: string): { payments: PaymentGateway; tax: TaxCalculator } {
  return {
    payments: traceCalls<PaymentGateway>(processor, GATEWAY_CALLS, "PaymentGateway", tracer, name),
    tax: traceCalls<TaxCalculator>(processor, TAX_CALLS, "TaxCalculator", tracer, name),
  };
}
