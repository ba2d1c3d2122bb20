import { afterAll, beforeAll, describe } from "bun:test";
import { silentLogger } from "../../src/adapters/log.ts";
import { createFakeProcessor } from "../../src/adapters/payments/fake-processor.ts";
import { createStripeClient, createStripeGateway } from "../../src/adapters/payments/stripe-gateway.ts";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";
import { type ProcessorTarget, paymentGatewayContract } from "./payment-gateway.contract.ts";

describe("built-in fake processor", () => {
  const fake = createFakeProcessor(cuid2Ids.next);
  paymentGatewayContract(() => ({ gateway: fake, completeAction: fake.completeAction }));
});

describe("Stripe adapter on the Stripe-shaped test server", () => {
  let server: StripeTestServer;
  let target: ProcessorTarget;
  beforeAll(async () => {
    server = await startStripeTestServer();
    target = {
      gateway: createStripeGateway(createStripeClient({ secretKey: server.secretKey, apiBase: server.url }), silentLogger),
      completeAction: server.completeAction,
    };
  });
  afterAll(() => server.close());
  paymentGatewayContract(() => target);
});
