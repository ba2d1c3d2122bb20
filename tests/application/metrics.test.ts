import { describe, expect, test } from "bun:test";
import type { WebhookEvent, WebhookVerifier } from "../../src/application/events/webhook-event.ts";
import type { PasswordHasher } from "../../src/application/ports/identity.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { observeWebhookVerifiers } from "../../src/application/system/observe.ts";
import { type UseCaseOptions, makeUseCases } from "../../src/application/use-cases.ts";
import { DomainError, databaseBusy, databaseUnavailable } from "../../src/domain/errors.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";

const origin = { ipAddress: "203.0.113.4", userAgent: "metrics-test" };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

async function shop(deps: MemoryDeps = createMemoryDeps(), options: Partial<UseCaseOptions> = {}) {
  const orders = { ...DEFAULT_ORDER_SETTINGS, maxUnpaidOrders: 10 };
  const useCases = makeUseCases(deps, { publicUrl: "http://localhost:3000", orders, ...options });
  const ada = aUser();
  const habanero = aProduct({ price: 1299, inventory: 100 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(habanero);
  const checkout = async (quantity = 1) => {
    deps.clock.advance(1_000);
    await useCases.addToCart(ada.id, { productId: habanero.id, quantity }, origin);
    return useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin);
  };
  return { deps, useCases, ada, habanero, checkout, counts: deps.metrics.counts };
}

describe("checkouts are counted by outcome", () => {
  test("placed, refused for inventory, refused otherwise (an empty cart); a replay of a made order is no second checkout", async () => {
    const { deps, useCases, ada, habanero, checkout, counts } = await shop();
    const placed = await checkout(1);
    await useCases.addToCart(ada.id, { productId: habanero.id, quantity: 5 }, origin);
    await deps.repos.products.update(habanero.id, { inventory: 4, updatedAt: new Date() });
    expect((await domainErrorOf(useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin))).code).toBe("inventory.insufficient");
    await useCases.removeCartItem(ada.id, (await useCases.getCart(ada.id)).lines[0]!.id, origin);
    expect((await domainErrorOf(useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin))).code).toBe("cart.empty");
    const key = { key: "retry-1", claimedAt: new Date(), orderId: placed.orderId };
    expect((await useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin, key)).orderId).toBe(placed.orderId);
    expect(Object.fromEntries(counts)).toEqual({ "checkout placed": 1, "checkout insufficient_inventory": 1, "checkout refused": 1 });
  });

  test("tax that failed, a payment intent that failed, a cart that kept changing, and failures: an error nobody expected, the database lost or busy", async () => {
    const base = createMemoryDeps();
    let failing: "tax" | "intent" | "cart" | "database" | "lost" | "busy" | null = null;
    let quantity = 1;
    const deps: MemoryDeps = {
      ...base,
      tax: {
        async calculate(input) {
          if (failing === "tax") throw new Error("Stripe Tax is down");
          if (failing === "cart") await base.repos.carts.setQuantity((await base.repos.carts.lines(ada.id))[0]!.id, ++quantity, new Date());
          return base.tax.calculate(input);
        },
      },
      payments: {
        ...base.payments,
        createIntent: (input) => (failing === "intent" ? Promise.reject(new Error("card network down")) : base.payments.createIntent(input)),
      },
      uow: {
        ...base.uow,
        transaction: (work) => {
          if (failing === "database") return Promise.reject(new Error("connection terminated"));
          if (failing === "lost") return Promise.reject(databaseUnavailable(new Error("Connection terminated unexpectedly")));
          if (failing === "busy") return Promise.reject(databaseBusy(new Error("canceling statement due to lock timeout")));
          return base.uow.transaction(work);
        },
      },
    };
    const { useCases, checkout, counts, ada, habanero } = await shop(deps);
    for (const [what, code] of [
      ["tax", "tax.unavailable"],
      ["intent", "order.creation_failed"],
      ["cart", "cart.changed"],
    ] as const) {
      failing = what;
      expect((await domainErrorOf(checkout(1))).code).toBe(code);
    }
    await useCases.addToCart(ada.id, { productId: habanero.id, quantity: 1 }, origin);
    failing = "database";
    await expect(useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin)).rejects.toThrow("connection terminated");
    // The database lost, or a row held elsewhere past the lock limit: a 503, which CheckoutsFailing must see.
    for (const what of ["lost", "busy"] as const) {
      failing = what;
      expect((await domainErrorOf(useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin))).code).toStartWith("database.");
    }
    expect(Object.fromEntries(counts)).toEqual({
      "checkout tax_failed": 1,
      "checkout intent_failed": 1,
      "checkout cart_changed": 1,
      "checkout error": 3,
    });
  });
});

describe("payments are counted by outcome", () => {
  test("paid, declined, waiting on 3-D Secure, refused by the shop, and the processor failing", async () => {
    const base = createMemoryDeps();
    let processorDown = false;
    const deps: MemoryDeps = {
      ...base,
      payments: {
        ...base.payments,
        confirmIntent: (...args) =>
          processorDown ? Promise.reject(new DomainError("payment.processor_failed", "Payment processing failed")) : base.payments.confirmIntent(...args),
      },
    };
    const { useCases, ada, checkout, counts } = await shop(deps);
    const pay = async (paymentMethodId: string, userId = ada.id) => useCases.payOrder(userId, { orderId: (await checkout()).orderId, paymentMethodId }, origin);
    expect((await pay("pm_card_visa")).success).toBe(true);
    expect((await domainErrorOf(pay("pm_card_chargeDeclined"))).code).toBe("payment.declined");
    expect((await pay("pm_card_threeDSecure2Required")).paymentIntent.status).toBe("requires_action");
    expect((await domainErrorOf(pay("pm_card_visa", "someone-else"))).code).toBe("forbidden");
    processorDown = true;
    expect((await domainErrorOf(pay("pm_card_visa"))).code).toBe("payment.processor_failed");
    processorDown = false;
    // The order's row held elsewhere past the lock limit: a 503, counted with the failures, not the shop's refusals.
    const { orderId } = await checkout();
    const held = () => Promise.reject(databaseBusy(new Error("canceling statement due to lock timeout")));
    const busy = { ...deps, uow: { ...deps.uow, transaction: held, write: held } };
    const { useCases: waiting } = await shop(busy);
    expect((await domainErrorOf(waiting.payOrder(ada.id, { orderId, paymentMethodId: "pm_card_visa" }, origin))).code).toBe("database.busy");
    const payments = [...counts].filter(([event]) => event.startsWith("payment "));
    expect(Object.fromEntries(payments)).toEqual({
      "payment paid": 1,
      "payment declined": 1,
      "payment requires_action": 1,
      "payment refused": 1,
      "payment processor_failed": 1,
      "payment error": 1,
    });
  });
});

describe("webhooks are counted by provider and outcome", () => {
  test("applied, a redelivery, a type the shop does not act on, and a delivery whose signature does not hold", async () => {
    const { useCases, counts, deps } = await shop();
    const delivered: WebhookEvent = { provider: "easypost", eventId: "evt_1", type: "tracker.updated", meaning: { kind: "record", orderId: null } };
    expect(await useCases.receiveWebhookEvent(delivered)).toBe("applied");
    expect(await useCases.receiveWebhookEvent(delivered)).toBe("duplicate");
    expect(await useCases.receiveWebhookEvent({ provider: "stripe", eventId: "evt_2", type: "customer.created", meaning: null })).toBe("ignored");
    const verifiers = observeWebhookVerifiers<Record<string, WebhookVerifier | null>>(
      {
        stripe: async () => {
          throw new DomainError("webhook.invalid_signature", "Invalid signature");
        },
        paypal: null,
      },
      deps.metrics,
    );
    expect(verifiers.paypal).toBeNull();
    expect((await domainErrorOf(verifiers.stripe!(new Uint8Array(), new Headers()))).code).toBe("webhook.invalid_signature");
    expect(Object.fromEntries(counts)).toEqual({
      "webhook easypost applied": 1,
      "webhook easypost duplicate": 1,
      "webhook stripe ignored": 1,
      "webhook stripe rejected": 1,
    });
  });
});

test("rate-limit refusals are counted by limit: one per refusal, none for what is let through", async () => {
  const { useCases, counts } = await shop(createMemoryDeps(), { rateLimit: { max: 2, passwordMax: 1, windowSeconds: 60 } });
  for (let i = 0; i < 3; i++) await useCases.takeRequest("203.0.113.9", "GET /api/products");
  for (let i = 0; i < 3; i++) await useCases.takePasswordRequest("203.0.113.9");
  expect(Object.fromEntries(counts)).toEqual({ "rateLimitRefusal endpoint": 1, "rateLimitRefusal password": 2 });
});

test("the password-check queue's refusals are counted by reason, from sign-in, registration and password change alike", async () => {
  let refusal: DomainError = new DomainError("auth.busy", "Too many sign-ins at once");
  const refusing: PasswordHasher = { hash: () => Promise.reject(refusal), verify: () => Promise.reject(refusal) };
  const { useCases, ada, counts } = await shop(createMemoryDeps({ hasher: refusing }));
  expect((await domainErrorOf(useCases.signInWithPassword({ email: ada.email, password: "whatever-it-is" }, origin, "c1"))).code).toBe("auth.busy");
  expect((await domainErrorOf(useCases.register({ email: "bo@example.com", password: "saffron-harbor-41", name: "Bo" }, origin, "c1"))).code).toBe("auth.busy");
  refusal = new DomainError("auth.check_waiting", "Another password check from your address is still waiting");
  const change = useCases.changePassword(ada.id, { currentPassword: "whatever-it-is", newPassword: "saffron-harbor-42" }, origin, "c1");
  expect((await domainErrorOf(change)).code).toBe("auth.check_waiting");
  expect(Object.fromEntries(counts)).toEqual({ "passwordCheckRefusal busy": 2, "passwordCheckRefusal client_waiting": 1 });
});

test("housekeeping counts its runs: done, and failed (the next one tries again)", async () => {
  const deps = createMemoryDeps();
  let down = false;
  const flaky: MemoryDeps = {
    ...deps,
    uow: { ...deps.uow, transaction: (work) => (down ? Promise.reject(new Error("database down")) : deps.uow.transaction(work)) },
  };
  const housekeeping = createHousekeeping(flaky, { intervalMs: 60_000, orderPaymentTtlMinutes: 30 });
  await housekeeping.runOnce();
  down = true;
  await expect(housekeeping.runOnce()).rejects.toThrow("database down");
  expect(Object.fromEntries(deps.metrics.counts)).toEqual({ "housekeepingRun done": 1, "housekeepingRun failed": 1 });
});
