import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import type { KyselyPlugin } from "kysely";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import { systemClock } from "../../src/adapters/system.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { auditEntries } from "../support/audit.ts";

// A payment's first and last steps are each one conditional statement on the order (its version);
// a connection lost around that statement must not cost the customer a paid order, nor count twice.
const origin = { ipAddress: "203.0.113.9", userAgent: "connection-loss" };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
let database: TestDatabase;
beforeAll(async () => (database = await createTestDatabase()));
beforeEach(() => database.truncate());
afterAll(() => database.drop());

const lostConnection = () => Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });

/**
 * The first statement whose SQL holds every one of `marks` loses its connection: before it is sent
 * (`when: "before"`), or once it has run and committed, its answer lost (`when: "after"`), after
 * `meanwhile` has run (what others do before the answer would have come back).
 */
function losing(marks: string[], when: "before" | "after", meanwhile: () => Promise<void> = async () => {}): KyselyPlugin {
  let armed = true;
  const matches = (node: unknown) => armed && marks.every((mark) => JSON.stringify(node).includes(mark));
  const pending = new WeakSet<object>();
  return {
    transformQuery(args) {
      if (!matches(args.node)) return args.node;
      if (when === "before") {
        armed = false;
        throw lostConnection();
      }
      pending.add(args.queryId);
      return args.node;
    },
    async transformResult(args) {
      if (armed && pending.has(args.queryId)) {
        armed = false;
        await meanwhile();
        throw lostConnection();
      }
      return args.result;
    },
  };
}

async function anOrder() {
  const deps = createPgDeps(database.db);
  const user = aUser();
  const product = aProduct({ inventory: 10 });
  await deps.repos.users.create(user);
  await deps.repos.products.create(product);
  await addToCart(deps, user.id, { productId: product.id, quantity: 1 }, origin);
  const placed = await placeOrder(deps, DEFAULT_ORDER_SETTINGS, user.id, { cartItemIds: null, shippingAddress: texas }, origin);
  return { deps, user, placed };
}

/** The shop's clock without the pauses of a payment waiting its turn (pay-order.ts): their 2 s are not these tests' subject. */
const unpaused = { ...systemClock, sleep: async () => {} };

const MARK_STEP = ['"payment_attempts"', "xmin = "];
const OUTCOME_STEP = ['"payment_status"', "xmin = "];

test("the attempt's mark lost after it landed: not taken for this request's own (it could be another's), so 409 until housekeeping settles it; nothing confirmed", async () => {
  const { deps, user, placed } = await anOrder();
  const faulty = createPgDeps(database.db.withPlugin(losing(MARK_STEP, "after")));
  const answer = payOrder(
    { ...faulty, payments: deps.payments, clock: unpaused },
    user.id,
    { orderId: placed.orderId, paymentMethodId: "pm_card_visa" },
    origin,
  );
  expect(await answer.catch((error) => error)).toMatchObject({ code: "payment.in_progress" });
  const order = (await deps.uow.read((db) => db.orders.read(placed.orderId)))!.order;
  expect(order).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", paymentAttempts: 1, paymentStartedAt: expect.any(Date) });
  expect((await deps.payments.retrieveIntent(order.stripePaymentIntentId!)).status).toBe("requires_payment_method");
});

for (const [step, marks, when] of [
  ["the attempt's mark", MARK_STEP, "before"],
  ["the outcome", OUTCOME_STEP, "before"],
  ["the outcome", OUTCOME_STEP, "after"],
] as const) {
  test(`${step}'s connection lost ${when === "before" ? "before its statement was sent" : "after its statement landed"}: paid once, the attempt counted once and closed, audited once`, async () => {
    const { deps, user, placed } = await anOrder();
    const faulty = createPgDeps(database.db.withPlugin(losing([...marks], when)));
    const answer = await payOrder({ ...faulty, payments: deps.payments }, user.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin);
    expect(answer).toMatchObject({ success: true, order: { status: "CONFIRMED", paymentStatus: "PAID" } });
    const order = (await deps.uow.read((db) => db.orders.read(placed.orderId)))!.order;
    expect(order).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentAttempts: 1, paymentStartedAt: null });
    expect(await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.succeeded" })).toHaveLength(1);
  });
}

test("a declined outcome that landed before its answer was lost leaves alone the mark of a payment begun since: a third one meanwhile is 409", async () => {
  const { deps, user, placed } = await anOrder();
  // The second payment's confirmation is held at the processor: its attempt is open meanwhile.
  let atProcessor!: () => void;
  const secondAtProcessor = new Promise<void>((resolve) => (atProcessor = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = {
    ...deps.payments,
    confirmIntent: async (...args: Parameters<typeof deps.payments.confirmIntent>) => {
      atProcessor();
      await released;
      return deps.payments.confirmIntent(...args);
    },
  };
  let second: Promise<unknown> | null = null;
  // The first payment's outcome (a decline) lands; before its answer comes back, the second payment begins.
  const faulty = createPgDeps(
    database.db.withPlugin(
      losing(OUTCOME_STEP, "after", async () => {
        second = payOrder({ ...deps, payments: holding }, user.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin).catch(
          (error) => error,
        );
        await secondAtProcessor;
      }),
    ),
  );
  const first = payOrder({ ...faulty, payments: deps.payments }, user.id, { orderId: placed.orderId, paymentMethodId: "pm_card_chargeDeclined" }, origin);
  expect(await first.catch((error) => error)).toMatchObject({ code: "payment.declined" });
  const third = await payOrder({ ...deps, clock: unpaused }, user.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin).catch(
    (error) => error,
  );
  release();
  expect(third).toMatchObject({ code: "payment.in_progress" });
  expect(await second).toMatchObject({ success: true, order: { paymentStatus: "PAID" } });
  const order = (await deps.uow.read((db) => db.orders.read(placed.orderId)))!.order;
  expect(order).toMatchObject({ paymentStatus: "PAID", paymentAttempts: 2, paymentStartedAt: null });
  expect(await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.failed" })).toHaveLength(1);
});
