import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import type { KyselyPlugin } from "kysely";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

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
 * (`when: "before"`), or once it has run and committed, its answer lost (`when: "after"`).
 */
function losing(marks: string[], when: "before" | "after"): KyselyPlugin {
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

const MARK_STEP = ['"payment_attempts"', "xmin = "];
const OUTCOME_STEP = ['"status"', "xmin = "];

for (const [step, marks] of [
  ["the attempt's mark", MARK_STEP],
  ["the outcome", OUTCOME_STEP],
] as const) {
  for (const when of ["before", "after"] as const) {
    test(`${step}'s connection lost ${when === "before" ? "before its statement was sent" : "after its statement landed"}: paid once, the attempt counted once and closed`, async () => {
      const { deps, user, placed } = await anOrder();
      const faulty = createPgDeps(database.db.withPlugin(losing([...marks], when)));
      const answer = await payOrder({ ...faulty, payments: deps.payments }, user.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin);
      expect(answer).toMatchObject({ success: true, order: { status: "CONFIRMED", paymentStatus: "PAID" } });
      const order = (await deps.uow.read((db) => db.orders.read(placed.orderId)))!.order;
      expect(order).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentAttempts: 1, paymentStartedAt: null });
      const entries = await deps.repos.audit.list({ entityId: placed.orderId, action: "payment.succeeded" });
      // Applied once; an outcome that had landed before its answer was lost is recorded again as ignored.
      expect(entries.filter((entry) => entry.changes.ignored === undefined)).toHaveLength(1);
      expect(entries).toHaveLength(step === "the outcome" && when === "after" ? 2 : 1);
    });
  }
}
