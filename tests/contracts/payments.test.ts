import { afterAll, beforeAll, describe } from "bun:test";
import { silentLogger } from "../../src/adapters/log.ts";
import { createPgFakeLedger } from "../../src/adapters/db/fake-processor-ledger.ts";
import { createMemoryFakeProcessor } from "../../src/adapters/memory/deps.ts";
import { challengePageAt, createFakeProcessor } from "../../src/adapters/payments/fake-processor.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { createStripeClient, createStripeGateway } from "../../src/adapters/payments/stripe-gateway.ts";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";
import { type ProcessorTarget, paymentGatewayContract } from "./payment-gateway.contract.ts";

describe("built-in fake processor, its books in memory (the unit tests')", () => {
  const fake = createMemoryFakeProcessor();
  paymentGatewayContract(() => ({ gateway: fake, completeAction: fake.completeAction }));
});

describe("built-in fake processor, its books in PostgreSQL (the shop's)", () => {
  let database: TestDatabase;
  let target: ProcessorTarget;
  beforeAll(async () => {
    database = await createTestDatabase();
    const fake = createFakeProcessor(cuid2Ids.next, createPgFakeLedger(database.db), challengePageAt("http://localhost:3000"));
    target = { gateway: fake, completeAction: fake.completeAction };
  });
  afterAll(() => database.drop());
  paymentGatewayContract(() => target);
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
