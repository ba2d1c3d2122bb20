import { describe, expect, test } from "bun:test";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { cancelOrder } from "../../src/application/orders/cancel-order.ts";
import { changeOrderStatus } from "../../src/application/orders/change-order-status.ts";
import { expireUnpaidOrders } from "../../src/application/orders/expire-unpaid-orders.ts";
import { type CheckoutSettings, type OrderRequest, placeOrder } from "../../src/application/orders/place-order.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { makeUseCases } from "../../src/application/use-cases.ts";
import { everyOrder, getOrder, listOrders } from "../../src/application/orders/read-orders.ts";
import { receiveWebhookEvent } from "../../src/application/events/receive-webhook-event.ts";
import { MAX_CART_LINES } from "../../src/domain/cart.ts";
import { trackingNumberFor } from "../../src/domain/order.ts";
import { DomainError, databaseBusy, databaseUnavailable } from "../../src/domain/errors.ts";
import { finishStrandedCheckouts } from "../../src/application/orders/finish-stranded-checkouts.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import type { Repositories } from "../../src/application/ports/index.ts";
import type { PaymentGateway } from "../../src/application/ports/payments.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { auditEntries } from "../support/audit.ts";

const origin = { ipAddress: "203.0.113.4", userAgent: "orders-test" };
const texas = { address1: "1 Main St", city: "Austin", state: "tx", postalCode: "78701" };
const staff: Actor = { userId: "staff-1", role: "STAFF", permissions: new Set(DEFAULT_ROLE_PERMISSIONS.STAFF) };
const admin: Actor = { userId: "admin-1", role: "ADMIN", permissions: new Set(DEFAULT_ROLE_PERMISSIONS.ADMIN) };

async function shop() {
  const deps = createMemoryDeps();
  const ada = aUser();
  const habanero = aProduct({ name: "Habanero", price: 1299, inventory: 10 });
  const verde = aProduct({ name: "Verde", price: 899, inventory: 3 });
  await deps.repos.users.create(ada);
  for (const p of [habanero, verde]) await deps.repos.products.create(p);
  // A second apart, as a shopper's adds are, so lines keep the order they were added in.
  const add = (productId: string, quantity: number, userId = ada.id) => {
    deps.clock.advance(1_000);
    return addToCart(deps, userId, { productId, quantity }, origin);
  };
  const customer: Actor = { userId: ada.id, role: "CUSTOMER", permissions: new Set() };
  return { deps, ada, habanero, verde, add, customer };
}

const order = (
  deps: MemoryDeps,
  userId: string,
  request: Partial<OrderRequest> & Pick<OrderRequest, "cartItemIds">,
  settings: CheckoutSettings = DEFAULT_ORDER_SETTINGS,
) => placeOrder(deps, settings, userId, { shippingAddress: texas, ...request }, origin);

/** The shop with a processor that refuses to make any payment intent (as housekeeping then undoes a stranded checkout). */
const refusingIntents = (deps: MemoryDeps): MemoryDeps => ({
  ...deps,
  payments: { ...deps.payments, createIntent: () => Promise.reject(new DomainError("payment.intent_refused", "The processor refused the intent")) },
});

type RefundInput = Parameters<PaymentGateway["refund"]>[0];

/** The processor, refusing to refund when asked inside a transaction (where the call would hold a connection, and the order's lock, while it waits). */
function refundsOutsideTransactions(deps: MemoryDeps): MemoryDeps {
  const refund = async (input: RefundInput) => (await deps.uow.read(async () => null), deps.payments.refund(input));
  return { ...deps, payments: { ...deps.payments, refund } };
}

const stockOf = async (deps: MemoryDeps, id: string) => (await deps.repos.products.findById(id))?.inventory;
const addOne = (deps: MemoryDeps, userId: string, productId: string) => {
  deps.clock.advance(1_000);
  return addToCart(deps, userId, { productId, quantity: 1 }, origin);
};

/**
 * The deps with a processor whose first cancel of an intent comes with a fresh intent made the
 * order's meanwhile, as a payment after a cancelled intent makes one; `fresh()` is its id.
 */
function freshIntentWhileStopping(deps: MemoryDeps, orderId: string) {
  let fresh: string | undefined;
  const racing = {
    ...deps,
    payments: {
      ...deps.payments,
      cancelIntent: async (id: string) => {
        const stopped = await deps.payments.cancelIntent(id);
        if (!fresh) {
          fresh = (await deps.payments.createIntent({ amount: stopped.amount, currency: "usd", metadata: { orderId }, idempotencyKey: "fresh" })).id;
          await deps.repos.orders.update(orderId, { stripePaymentIntentId: fresh, updatedAt: deps.clock.now() });
        }
        return stopped;
      },
    },
  };
  return { racing, fresh: () => fresh };
}

describe("placing an order", () => {
  test("takes the stock, writes the order with copied items, removes the lines, audits, and creates the payment intent", async () => {
    const { deps, ada, habanero, verde, add } = await shop();
    const lines = [await add(habanero.id, 2), await add(verde.id, 1)];
    const placed = await order(deps, ada.id, { cartItemIds: lines.map((l) => l.id), notes: " ring twice " });

    // 2 × 12.99 + 8.99 = 34.97, shipping 6.99, Texas 6.25 % per line: 1.62 + 0.56.
    expect(placed).toEqual({
      orderId: expect.any(String),
      orderNumber: expect.stringMatching(/^SF-20261122-[A-Z0-9]{4}$/),
      clientSecret: expect.stringMatching(/^pi_.+_secret_/),
      amount: 4414,
    });
    const stored = await deps.repos.orders.findById(placed.orderId);
    expect(stored).toMatchObject({
      status: "PENDING",
      paymentStatus: "PENDING",
      subtotal: 3497,
      shippingCost: 699,
      tax: 218,
      total: 4414,
      customerNotes: "ring twice",
      userId: ada.id,
    });
    expect(stored?.items.map((i) => [i.productName, i.productSku, i.quantity, i.unitPrice, i.totalPrice])).toEqual([
      ["Habanero", habanero.sku, 2, 1299, 2598],
      ["Verde", verde.sku, 1, 899, 899],
    ]);
    expect([await stockOf(deps, habanero.id), await stockOf(deps, verde.id)]).toEqual([8, 2]);
    expect(await deps.repos.carts.lines(ada.id)).toEqual([]);

    const intent = deps.processor.intents.get(stored!.stripePaymentIntentId!);
    expect(intent).toMatchObject({
      amount: 4414,
      currency: "usd",
      metadata: { orderId: placed.orderId, orderNumber: placed.orderNumber },
      status: "requires_payment_method",
    });
    const [audit] = await auditEntries(deps.repos.audit, { action: "order.create" });
    expect(audit).toMatchObject({
      userId: ada.id,
      entityId: placed.orderId,
      ipAddress: "203.0.113.4",
      changes: { orderNumber: placed.orderNumber, total: 4414 },
    });
  });

  test("orders only the lines asked for; the rest stay in the cart", async () => {
    const { deps, ada, habanero, verde, add } = await shop();
    const kept = await add(habanero.id, 1);
    const ordered = await add(verde.id, 1);
    await order(deps, ada.id, { cartItemIds: [ordered.id] });
    expect((await deps.repos.carts.lines(ada.id)).map((l) => l.id)).toEqual([kept.id]);
  });

  test("checkout without ids orders every line the shopper sees, not one taken off sale; an empty cart is refused", async () => {
    const { deps, ada, habanero, verde, add } = await shop();
    await add(habanero.id, 1);
    const hidden = await add(verde.id, 1);
    await deps.repos.products.update(verde.id, { isActive: false, updatedAt: new Date() });
    const placed = await order(deps, ada.id, { cartItemIds: null });
    expect((await deps.repos.orders.findById(placed.orderId))?.items.map((i) => i.productId)).toEqual([habanero.id]);
    expect((await deps.repos.carts.lines(ada.id)).map((l) => l.id)).toEqual([hidden.id]);
    expect((await domainErrorOf(order(deps, ada.id, { cartItemIds: null }))).code).toBe("cart.empty");
  });

  test.each([
    ["another user's line", "other"],
    ["an unknown line", "unknown"],
    ["a line whose product is off sale", "off sale"],
  ])("%s is 400 Cart items not found, and nothing changes", async (_, kind) => {
    const { deps, ada, habanero, verde, add } = await shop();
    const mine = await add(habanero.id, 1);
    const bob = aUser();
    await deps.repos.users.create(bob);
    const theirs = await add(verde.id, 1, bob.id);
    const offSale = await add(verde.id, 1);
    if (kind === "off sale") await deps.repos.products.update(verde.id, { isActive: false, updatedAt: new Date() });
    const other = { other: theirs.id, unknown: "z12345678901234567890123", "off sale": offSale.id }[kind]!;
    const error = await domainErrorOf(order(deps, ada.id, { cartItemIds: [mine.id, other] }));
    expect(error).toMatchObject({ code: "cart.items_not_found", message: "Cart items not found", details: { cartItemIds: [other] } });
    expect(await stockOf(deps, habanero.id)).toBe(10);
    expect(deps.state.orders.size).toBe(0);
    expect((await deps.repos.carts.lines(ada.id)).length).toBe(2);
  });

  test("too little stock is 400 naming the product and what is left; nothing is taken, the cart stays", async () => {
    const { deps, ada, habanero, verde, add } = await shop();
    const lines = [await add(habanero.id, 2), await add(verde.id, 3)];
    await deps.repos.products.update(verde.id, { inventory: 2, updatedAt: new Date() });
    const error = await domainErrorOf(order(deps, ada.id, { cartItemIds: lines.map((l) => l.id) }));
    expect(error).toMatchObject({
      code: "inventory.insufficient",
      message: "Insufficient inventory",
      details: { productId: verde.id, productName: "Verde", requested: 3, available: 2 },
    });
    expect([await stockOf(deps, habanero.id), await stockOf(deps, verde.id)]).toEqual([10, 2]);
    expect(Object.fromEntries((await deps.repos.carts.lines(ada.id)).map((l) => [l.productId, l.quantity]))).toEqual({ [habanero.id]: 2, [verde.id]: 3 });
    expect(deps.state.orders.size).toBe(0);
  });

  test("a US address needs a state code and a ZIP; the answer names the field", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 1);
    const error = await domainErrorOf(order(deps, ada.id, { cartItemIds: [line.id], shippingAddress: { ...texas, state: "Texas" } }));
    expect(error).toMatchObject({
      code: "invalid_input",
      details: { issues: [{ path: "shippingAddress.state", message: "must be a US state code (two letters, e.g. TX)" }] },
    });
  });

  test("abroad: $24.99 shipping and no US sales tax; billing defaults to shipping", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 5);
    const toronto = { address1: "1 Queen St W", city: "Toronto", state: "ON", postalCode: "M5H 2N2", country: "ca" };
    const placed = await order(deps, ada.id, { cartItemIds: [line.id], shippingAddress: toronto });
    expect(await deps.repos.orders.findById(placed.orderId)).toMatchObject({
      subtotal: 6495,
      shippingCost: 2499,
      tax: 0,
      total: 8994,
      shippingAddress: { country: "CA", state: "ON" },
      billingAddress: { country: "CA", state: "ON" },
      shippingMethod: "1 Queen St W\nToronto, ON M5H 2N2\nCA",
    });
  });

  test("when tax cannot be calculated there is no order, nothing is taken, and no $0 is guessed", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 1);
    const broken = { ...deps, tax: { calculate: () => Promise.reject(new Error("Stripe Tax is down")) } };
    expect((await domainErrorOf(order(broken, ada.id, { cartItemIds: [line.id] }))).code).toBe("tax.unavailable");
    expect(deps.state.orders.size).toBe(0);
    expect(await stockOf(deps, habanero.id)).toBe(10);
    expect(await deps.repos.carts.lines(ada.id)).toHaveLength(1);
  });

  test("when the payment intent cannot be created the order is undone: cancelled, stock back, lines back, and the caller gets order.creation_failed", async () => {
    const { deps, ada, habanero, verde, add } = await shop();
    const lines = [await add(habanero.id, 2), await add(verde.id, 1)];
    const before = await deps.repos.carts.lines(ada.id);
    const broken = { ...deps, payments: { ...deps.payments, createIntent: () => Promise.reject(new Error("card network down")) } };
    const error = await domainErrorOf(order(broken, ada.id, { cartItemIds: lines.map((l) => l.id) }));
    expect(error).toMatchObject({ code: "order.creation_failed", message: "Order creation failed" });
    expect([await stockOf(deps, habanero.id), await stockOf(deps, verde.id)]).toEqual([10, 3]);
    expect(await deps.repos.carts.lines(ada.id)).toEqual(before);
    const [cancelled] = [...deps.state.orders.values()];
    expect(cancelled).toMatchObject({ status: "CANCELLED", paymentStatus: "PENDING" });
    expect((await auditEntries(deps.repos.audit, { action: "order.status_update" }))[0]?.changes).toMatchObject({
      to: "CANCELLED",
      reason: "the payment intent could not be created",
    });
  });

  test("an order undone after the shopper filled the cart meanwhile: its line is left out, the cart kept within its limit, and the cancel's entry says so (found by a review)", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 2);
    const others = Array.from({ length: MAX_CART_LINES }, (_, i) => aProduct({ name: `Sauce ${i}`, inventory: 5 }));
    for (const product of others) await deps.repos.products.create(product);
    const broken = {
      ...deps,
      payments: {
        ...deps.payments,
        createIntent: async () => {
          // Another tab fills the cart while the processor is asked.
          for (const product of others) await add(product.id, 1);
          throw new Error("card network down");
        },
      },
    };
    expect((await domainErrorOf(order(broken, ada.id, { cartItemIds: [line.id] }))).code).toBe("order.creation_failed");
    const lines = await deps.repos.carts.lines(ada.id);
    expect([lines.length, lines.some((l) => l.productId === habanero.id)]).toEqual([MAX_CART_LINES, false]);
    expect(await stockOf(deps, habanero.id)).toBe(10);
    expect((await auditEntries(deps.repos.audit, { action: "order.status_update" }))[0]?.changes).toMatchObject({
      to: "CANCELLED",
      reason: "the payment intent could not be created",
      linesPutBack: [],
      linesLeftOut: [{ productId: habanero.id, quantity: 2, reason: "cart_full" }],
    });
  });

  test("an order housekeeping undid while checkout's call to the processor was slow is not undone again: its lines go back once (found by a review)", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 2);
    const refusing = refusingIntents(deps);
    const slow = {
      ...deps,
      payments: {
        ...deps.payments,
        createIntent: async () => {
          // Past the grace time, housekeeping finds the order without its intent, and the processor refuses it one.
          deps.clock.advance(DEFAULT_ORDER_SETTINGS.graceMs);
          expect((await finishStrandedCheckouts(refusing, DEFAULT_ORDER_SETTINGS.graceMs)).undone).toHaveLength(1);
          throw new Error("card network down");
        },
      },
    };
    expect((await domainErrorOf(order(slow, ada.id, { cartItemIds: [line.id] }))).code).toBe("order.creation_failed");
    expect((await deps.repos.carts.lines(ada.id)).map((l) => [l.productId, l.quantity])).toEqual([[habanero.id, 2]]);
    expect(await stockOf(deps, habanero.id)).toBe(10);
    expect(await auditEntries(deps.repos.audit, { action: "order.status_update" })).toHaveLength(1);
  });

  test("an undo that finds the cart or the order held past the lock limit leaves the order to housekeeping, as a crash would: 503 to try again, not 500 after three waits (found by a review)", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 2);
    let transactions = 0;
    const held: MemoryDeps = {
      ...deps,
      payments: { ...deps.payments, createIntent: () => Promise.reject(new Error("card network down")) },
      uow: {
        ...deps.uow,
        // The checkout's own transaction goes through; the undo's waits on a lock past the limit.
        transaction: (work) =>
          ++transactions === 1 ? deps.uow.transaction(work) : Promise.reject(databaseBusy(new Error("canceling statement due to lock timeout"))),
      },
    };
    expect((await domainErrorOf(order(held, ada.id, { cartItemIds: [line.id] }))).code).toBe("database.busy");
    expect(transactions).toBe(2);
    const [left] = [...deps.state.orders.values()];
    expect(left).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: null });

    // Housekeeping, after the grace time, undoes it with its lines back, as checkout would have.
    deps.clock.advance(DEFAULT_ORDER_SETTINGS.graceMs);
    const refusing = refusingIntents(deps);
    expect((await finishStrandedCheckouts(refusing, DEFAULT_ORDER_SETTINGS.graceMs)).undone).toEqual([left!.orderNumber]);
    expect((await deps.repos.carts.lines(ada.id)).map((l) => [l.productId, l.quantity])).toEqual([[habanero.id, 2]]);
    expect(await stockOf(deps, habanero.id)).toBe(10);
  });

  test("the database going away after the order's commit, before its intent is stored: the order is left as a crash there leaves it (for housekeeping, its intent not cancelled), and the caller gets database.unavailable (a 503), not a 500", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 2);
    let transactions = 0;
    const away: MemoryDeps = {
      ...deps,
      uow: {
        read: deps.uow.read,
        transaction: (work) =>
          ++transactions === 1 ? deps.uow.transaction(work) : Promise.reject(databaseUnavailable(new Error("Connection terminated unexpectedly"))),
        // Storing the intent is a single write of its own.
        write: () => Promise.reject(databaseUnavailable(new Error("Connection terminated unexpectedly"))),
      },
    };
    const error = await domainErrorOf(order(away, ada.id, { cartItemIds: [line.id] }));
    expect([error.code, error.details]).toEqual(["database.unavailable", { retryAfterSeconds: 2 }]);
    const [left] = [...deps.state.orders.values()];
    expect(left).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: null });
    expect([await stockOf(deps, habanero.id), await deps.repos.carts.lines(ada.id)]).toEqual([8, []]);
    const [intent] = [...deps.processor.intents.values()];
    expect(intent?.status).toBe("requires_payment_method");

    // Housekeeping finds the very intent checkout made, by the order's key, and the order is payable.
    deps.clock.advance(DEFAULT_ORDER_SETTINGS.graceMs);
    expect(await finishStrandedCheckouts(deps, DEFAULT_ORDER_SETTINGS.graceMs)).toEqual({ intentsStored: [left!.orderNumber], undone: [] });
    expect((await deps.repos.orders.findById(left!.id))?.stripePaymentIntentId).toBe(intent!.id);
    expect(deps.processor.intents.size).toBe(1);
  });

  test("an order number already taken is drawn again", async () => {
    const { deps, ada, habanero, add } = await shop();
    const draws = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1];
    const scripted = { ...deps, random: { below: () => draws.shift() ?? 2 } };
    const first = await order(scripted, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] });
    const second = await order(scripted, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] });
    expect([first.orderNumber.slice(-4), second.orderNumber.slice(-4)]).toEqual(["AAAA", "BBBB"]);
  });
});

describe("unpaid orders cannot hoard stock (decisions §15)", () => {
  const cartLines = async (deps: MemoryDeps, userId: string) => (await deps.repos.carts.lines(userId)).map((l) => [l.id, l.quantity]);

  test("with MAX_UNPAID_ORDERS unpaid orders (a declined one is unpaid too), the next checkout is refused naming the limit and the orders; nothing is taken", async () => {
    const { deps, ada, habanero, add } = await shop();
    const unpaid = [];
    for (let i = 0; i < 3; i++) unpaid.push(await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] }));
    await expect(payOrder(deps, ada.id, { orderId: unpaid[1]!.orderId, paymentMethodId: "pm_card_chargeDeclined" }, origin)).rejects.toMatchObject({
      code: "payment.declined",
    });
    const line = await add(habanero.id, 2);

    expect(await domainErrorOf(order(deps, ada.id, { cartItemIds: [line.id] }))).toMatchObject({
      code: "order.too_many_unpaid",
      message: "Pay or cancel your unpaid orders first",
      details: { limit: 3, unpaidOrders: unpaid.map((o) => ({ id: o.orderId, orderNumber: o.orderNumber })) },
    });
    expect(await domainErrorOf(order(deps, ada.id, { cartItemIds: null }))).toMatchObject({ code: "order.too_many_unpaid" });
    expect([deps.state.orders.size, await stockOf(deps, habanero.id), await cartLines(deps, ada.id)]).toEqual([3, 7, [[line.id, 2]]]);
  });

  test("paid and ended orders do not count: paying or cancelling one makes room; another customer is not held back", async () => {
    const { deps, ada, habanero, add } = await shop();
    const unpaid = [];
    for (let i = 0; i < 3; i++) unpaid.push(await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] }));
    const bob = aUser();
    await deps.repos.users.create(bob);
    await order(deps, bob.id, { cartItemIds: [(await addToCart(deps, bob.id, { productId: habanero.id, quantity: 1 }, origin)).id] });

    await payOrder(deps, ada.id, { orderId: unpaid[0]!.orderId, paymentMethodId: "pm_card_visa" }, origin);
    await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] });
    const line = await add(habanero.id, 1);
    expect((await domainErrorOf(order(deps, ada.id, { cartItemIds: [line.id] }))).code).toBe("order.too_many_unpaid");
    await changeOrderStatus(deps, staff, { id: unpaid[1]!.orderId }, { status: "CANCELLED" }, origin);
    expect(await order(deps, ada.id, { cartItemIds: [line.id] })).toMatchObject({ orderNumber: expect.any(String) });
  });

  test("the limit is the shop's setting (MAX_UNPAID_ORDERS)", async () => {
    const { deps, ada, habanero, add } = await shop();
    const useCases = makeUseCases(deps, { publicUrl: "http://localhost:3000", orders: { ...DEFAULT_ORDER_SETTINGS, maxUnpaidOrders: 1 } });
    const first = await useCases.placeOrder(ada.id, { cartItemIds: [(await add(habanero.id, 1)).id], shippingAddress: texas }, origin);
    await add(habanero.id, 1);
    expect(await domainErrorOf(useCases.placeOrder(ada.id, { cartItemIds: null, shippingAddress: texas }, origin))).toMatchObject({
      code: "order.too_many_unpaid",
      details: { limit: 1, unpaidOrders: [{ id: first.orderId, orderNumber: first.orderNumber }] },
    });
  });
});

describe("placing an order while things change", () => {
  test("a cart changed between pricing and locking is priced again (tax included); changed every time, it is 400", async () => {
    const { deps, ada, habanero, add } = await shop();
    let line = await add(habanero.id, 1);
    let changes = 1;
    let quantity = 2;
    const fickle = {
      ...deps,
      tax: {
        calculate: async (input: Parameters<typeof deps.tax.calculate>[0]) => {
          if (changes-- > 0) await deps.repos.carts.setQuantity(line.id, ++quantity, new Date());
          return deps.tax.calculate(input);
        },
      },
    };
    const placed = await order(fickle, ada.id, { cartItemIds: [line.id] });
    // 3 × 12.99 = 38.97, shipping 6.99, tax 6.25 %: 2.44.
    expect(await deps.repos.orders.findById(placed.orderId)).toMatchObject({
      subtotal: 3897,
      tax: 244,
      total: 4840,
      items: [expect.objectContaining({ quantity: 3 })],
    });

    line = await add(habanero.id, 1);
    changes = Infinity;
    expect(await domainErrorOf(order(fickle, ada.id, { cartItemIds: [line.id] }))).toMatchObject({
      code: "cart.changed",
      message: "Your cart changed while the order was being placed; please try again",
    });
  });

  test("a price changed between pricing and locking is priced again: the order carries the new price, and tax is asked again for the new amounts", async () => {
    const { deps, ada, habanero, add } = await shop();
    const line = await add(habanero.id, 2);
    const asked: number[][] = [];
    let changes = 1;
    const repriced = {
      ...deps,
      tax: {
        calculate: async (input: Parameters<typeof deps.tax.calculate>[0]) => {
          asked.push(input.lines.map((l) => l.amount));
          if (changes-- > 0) await deps.repos.products.update(habanero.id, { price: 1499, updatedAt: new Date() });
          return deps.tax.calculate(input);
        },
      },
    };
    const placed = await order(repriced, ada.id, { cartItemIds: [line.id] });
    expect(asked).toEqual([[2598], [2998]]);
    // 2 × 14.99 = 29.98, shipping 6.99, tax 6.25 %: 1.87.
    expect(await deps.repos.orders.findById(placed.orderId)).toMatchObject({
      subtotal: 2998,
      tax: 187,
      total: 2998 + 699 + 187,
      items: [expect.objectContaining({ quantity: 2, unitPrice: 1499, totalPrice: 2998 })],
    });
    expect(placed.amount).toBe(2998 + 699 + 187);
  });

  test("a product taken off sale after its line was locked is, as decisions §4 says, not in the cart", async () => {
    const { deps, ada, habanero, verde, add } = await shop();
    const lines = [await add(habanero.id, 1), await add(verde.id, 1)];
    const racing = {
      ...deps,
      uow: {
        ...deps.uow,
        transaction: <T>(work: (tx: Repositories) => Promise<T>) =>
          deps.uow.transaction((tx) =>
            work({
              ...tx,
              products: {
                ...tx.products,
                takeStock: async (stock, at) => {
                  await tx.products.update(verde.id, { isActive: false, updatedAt: at });
                  return tx.products.takeStock(stock, at);
                },
              },
            }),
          ),
      },
    };
    expect(await domainErrorOf(order(racing, ada.id, { cartItemIds: lines.map((l) => l.id) }))).toMatchObject({
      code: "cart.items_not_found",
      details: { cartItemIds: [lines[1]!.id] },
    });
  });

  test("an order over $999,999.99, the most a processor charges, is refused before tax is asked", async () => {
    const { deps, ada, add } = await shop();
    const gold = aProduct({ name: "Gold Sauce", price: 10_000_000, inventory: 500 });
    await deps.repos.products.create(gold);
    const line = await add(gold.id, 99);
    let asked = 0;
    const counting = { ...deps, tax: { calculate: (input: Parameters<typeof deps.tax.calculate>[0]) => (asked++, deps.tax.calculate(input)) } };
    expect(await domainErrorOf(order(counting, ada.id, { cartItemIds: [line.id] }))).toMatchObject({
      code: "order.too_large",
      message: "An order may total at most $999,999.99",
      details: { total: 9_900_000, maximum: 999_999.99 },
    });
    expect([asked, deps.state.orders.size, await stockOf(deps, gold.id)]).toEqual([0, 0, 500]);
  });

  test("an order just under $999,999.99 that its tax takes over is refused, with no order written, no stock taken and its line still in the cart", async () => {
    const { deps, ada, add } = await shop();
    const gold = aProduct({ name: "Gold Sauce", price: 1_000_000, inventory: 500 });
    await deps.repos.products.create(gold);
    const line = await add(gold.id, 99);
    // 99 × $10,000 = $990,000.00 before tax; Texas's 6.25 % adds $61,875.00.
    expect(await domainErrorOf(order(deps, ada.id, { cartItemIds: [line.id] }))).toMatchObject({
      code: "order.too_large",
      message: "An order may total at most $999,999.99",
      details: { total: 1_051_875, maximum: 999_999.99 },
    });
    expect([deps.state.orders.size, await stockOf(deps, gold.id), deps.processor.intents.size]).toEqual([0, 500, 0]);
    expect((await deps.repos.carts.lines(ada.id)).map((l) => [l.id, l.quantity])).toEqual([[line.id, 99]]);
  });

  test("staff cancelling the order while its payment intent is being made: the stock comes back once, the order stays as staff left it (its lines not put back), the caller gets 500", async () => {
    const { deps, ada, habanero, add } = await shop();
    for (const intentOutcome of ["fails", "succeeds"] as const) {
      const line = await add(habanero.id, 2);
      let made: string | undefined;
      const slow = {
        ...deps,
        payments: {
          ...deps.payments,
          createIntent: async (input: Parameters<typeof deps.payments.createIntent>[0]) => {
            await changeOrderStatus(deps, staff, { id: input.metadata.orderId! }, { status: "CANCELLED" }, origin);
            if (intentOutcome === "fails") throw new Error("card network down");
            const intent = await deps.payments.createIntent(input);
            made = intent.id;
            return intent;
          },
        },
      };
      expect((await domainErrorOf(order(slow, ada.id, { cartItemIds: [line.id] }))).code).toBe("order.creation_failed");
      expect(await stockOf(deps, habanero.id)).toBe(10);
      // Staff's cancel settled it (an undo by housekeeping would have put the lines back already).
      expect(await deps.repos.carts.lines(ada.id)).toEqual([]);
      const ended = [...deps.state.orders.values()].at(-1)!;
      expect(ended).toMatchObject({ status: "CANCELLED", stripePaymentIntentId: null });
      if (made) expect(deps.processor.intents.get(made)?.status).toBe("canceled");
    }
  });
});

describe("reading orders", () => {
  /** Three orders of Ada's, a second apart (their ids oldest first), and one of Bob's after them. */
  async function ordersOfAdaAndBob() {
    const shopped = await shop();
    const { deps, ada, habanero, add } = shopped;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] })).orderId);
      deps.clock.advance(1_000);
    }
    const bob = aUser();
    await deps.repos.users.create(bob);
    const bobs = (await order(deps, bob.id, { cartItemIds: [(await addToCart(deps, bob.id, { productId: habanero.id, quantity: 1 }, origin)).id] })).orderId;
    return { ...shopped, ids, bobs };
  }

  test("a shopper lists their own orders, newest first by default, filtered and paged, with the total", async () => {
    const { deps, customer, ids } = await ordersOfAdaAndBob();

    const all = await listOrders(deps, customer, { skip: 0, take: null, sortOrder: "desc" });
    expect(all.total).toBe(3);
    expect(all.orders.map((o) => o.id)).toEqual([...ids].reverse());
    const page = await listOrders(deps, customer, { skip: 1, take: 1, sortOrder: "asc" });
    expect([page.total, page.orders.map((o) => o.id)]).toEqual([3, [ids[1]!]]);
    expect((await listOrders(deps, customer, { status: "CANCELLED", skip: 0, take: null, sortOrder: "desc" })).total).toBe(0);
  });

  test("staff with orders:read read every customer's orders, newest first, batch by batch; a shopper may not", async () => {
    const { deps, customer, ids, bobs } = await ordersOfAdaAndBob();
    const read = async (status?: "CANCELLED") => {
      const seen: string[] = [];
      for await (const batch of await everyOrder(deps, staff, status)) seen.push(...batch.map((o) => o.id));
      return seen;
    };
    expect(await read()).toEqual([bobs, ...[...ids].reverse()]);
    expect(await read("CANCELLED")).toEqual([]);
    expect((await domainErrorOf(everyOrder(deps, customer))).code).toBe("forbidden");
  });

  test("one order: its owner's, or anyone's for orders:read; 404 when unknown", async () => {
    const { deps, ada, habanero, add, customer } = await shop();
    const placed = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] });
    expect((await getOrder(deps, customer, placed.orderId)).items[0]?.product).toMatchObject({
      id: habanero.id,
      slug: habanero.slug,
      heatLevel: habanero.heatLevel,
    });
    expect((await getOrder(deps, staff, placed.orderId)).id).toBe(placed.orderId);
    const bob: Actor = { userId: "bob", role: "CUSTOMER", permissions: new Set() };
    expect((await domainErrorOf(getOrder(deps, bob, placed.orderId))).code).toBe("forbidden");
    expect((await domainErrorOf(getOrder(deps, customer, "z12345678901234567890123"))).code).toBe("order.not_found");
  });
});

describe("changing an order's status", () => {
  async function placed() {
    const s = await shop();
    const line = await s.add(s.habanero.id, 2);
    const { orderId } = await order(s.deps, s.ada.id, { cartItemIds: [line.id] });
    /** The move and what became of its refund. */
    const moveWithRefund = (status: Parameters<typeof changeOrderStatus>[3]["status"], actor: Actor = staff, trackingNumber?: string, deps = s.deps) => {
      s.deps.clock.advance(1_000);
      return changeOrderStatus(deps, actor, { id: orderId }, { status, trackingNumber }, origin);
    };
    /** The order as the move left it. */
    const move = async (status: Parameters<typeof changeOrderStatus>[3]["status"], actor: Actor = staff, trackingNumber?: string) =>
      (await moveWithRefund(status, actor, trackingNumber)).order;
    /** As a successful payment leaves it (the payment route arrives with the payments issue). */
    const pay = async () => {
      const stored = (await s.deps.repos.orders.findById(orderId))!;
      await s.deps.payments.confirmIntent(stored.stripePaymentIntentId!, "pm_card_visa", "pay-once");
      await s.deps.repos.orders.update(orderId, { status: "CONFIRMED", paymentStatus: "PAID", updatedAt: new Date() });
    };
    return { ...s, orderId, move, moveWithRefund, pay };
  }

  test("follows the table: through to DELIVERED, with a tracking number to ship; the audit says who moved it", async () => {
    const { deps, orderId, move, pay, habanero } = await placed();
    await pay();
    await move("PROCESSING");
    expect(await domainErrorOf(move("SHIPPED"))).toMatchObject({ code: "order.tracking_required", details: { field: "trackingNumber" } });
    expect(await move("SHIPPED", staff, "1Z999AA10123456784")).toMatchObject({ status: "SHIPPED", trackingNumber: "1Z999AA10123456784" });
    expect(await domainErrorOf(move("PROCESSING"))).toMatchObject({
      code: "order.invalid_transition",
      message: "An order cannot move from SHIPPED to PROCESSING; allowed: DELIVERED, REFUNDED",
    });
    await move("DELIVERED");
    expect(await stockOf(deps, habanero.id)).toBe(8);
    const audits = await auditEntries(deps.repos.audit, { action: "order.status_update", entityId: orderId });
    expect(audits.map((a) => [a.changes.from, a.changes.to, a.userId])).toEqual([
      ["SHIPPED", "DELIVERED", "staff-1"],
      ["PROCESSING", "SHIPPED", "staff-1"],
      ["CONFIRMED", "PROCESSING", "staff-1"],
    ]);
  });

  test("cancelling an unpaid order puts the stock back and cancels its payment intent, so it cannot be paid later", async () => {
    const { deps, orderId, move, habanero } = await placed();
    expect(await move("CANCELLED")).toMatchObject({ status: "CANCELLED", paymentStatus: "PENDING" });
    expect(await stockOf(deps, habanero.id)).toBe(10);
    const intentId = (await deps.repos.orders.findById(orderId))!.stripePaymentIntentId!;
    expect(deps.processor.intents.get(intentId)?.status).toBe("canceled");
  });

  test("a paid order cancelled (financials:refunds too) is refunded in three steps: marked due with the move, asked of the processor outside any transaction, settled", async () => {
    const { deps, orderId, move, moveWithRefund, pay, habanero } = await placed();
    await pay();
    expect(await domainErrorOf(move("CANCELLED", staff))).toMatchObject({ code: "forbidden", details: { required: "financials:refunds" } });
    expect((await deps.repos.orders.findById(orderId))?.status).toBe("CONFIRMED");
    const cancelled = await moveWithRefund("CANCELLED", admin, undefined, refundsOutsideTransactions(deps));
    expect(cancelled).toMatchObject({ order: { status: "CANCELLED", paymentStatus: "REFUNDED" }, refund: "made" });
    const { total, stripePaymentIntentId } = cancelled.order;
    expect([...deps.processor.refunds.values()]).toEqual([{ id: expect.any(String), intentId: stripePaymentIntentId!, amount: total, status: "succeeded" }]);
    expect(await deps.repos.refunds.listOfOrder(orderId)).toEqual([
      expect.objectContaining({
        idempotencyKey: `refund-${orderId}`,
        reason: "order_ended",
        amount: total,
        attempts: 1,
        confirmedAt: expect.any(Date),
        processorRefundId: [...deps.processor.refunds.keys()][0],
      }),
    ]);
    expect(await move("CANCELLED", admin).catch((e: DomainError) => e.code)).toBe("order.invalid_transition");
    expect(deps.processor.refunds.size).toBe(1);
    expect(await stockOf(deps, habanero.id)).toBe(10);
    const [audit] = await auditEntries(deps.repos.audit, { action: "order.status_update", entityId: orderId });
    expect(audit?.changes).toMatchObject({ from: "CONFIRMED", to: "CANCELLED", refundDue: total, by: "ADMIN" });
    const [settled] = await auditEntries(deps.repos.audit, { action: "payment.refunded", entityId: orderId });
    expect(settled?.changes).toMatchObject({ intentId: stripePaymentIntentId, amount: total, reason: "order_ended", from: "PAID", to: "REFUNDED" });
  });

  test("a refund the processor refuses: the order has moved all the same (its stock as it was after shipping), its payment stays PAID and the refund is due with the error", async () => {
    const { deps, orderId, move, moveWithRefund, pay, habanero } = await placed();
    await pay();
    await move("PROCESSING");
    await move("SHIPPED", staff, "TRACK-1");
    const refusing = {
      ...deps,
      payments: { ...deps.payments, refund: () => Promise.reject(new DomainError("payment.processor_failed", "Payment processing failed")) },
    };
    expect(await moveWithRefund("REFUNDED", admin, undefined, refusing)).toMatchObject({ order: { status: "REFUNDED", paymentStatus: "PAID" }, refund: "due" });
    expect(await deps.repos.orders.findById(orderId)).toMatchObject({ status: "REFUNDED", paymentStatus: "PAID" });
    expect(await stockOf(deps, habanero.id)).toBe(8);
    expect(await deps.repos.refunds.listDue()).toEqual([
      expect.objectContaining({ orderId, idempotencyKey: `refund-${orderId}`, attempts: 1, lastError: "Payment processing failed", confirmedAt: null }),
    ]);
    expect(deps.processor.refunds.size).toBe(0);
    expect(await move("REFUNDED", admin).catch((e: DomainError) => e.code)).toBe("order.invalid_transition");
  });

  test("a payment refunded in full at the processor already (from its dashboard, its webhook never heard): the refund due is settled as made, not asked for ever (found by an attack)", async () => {
    const { deps, orderId, moveWithRefund, pay } = await placed();
    await pay();
    const { stripePaymentIntentId: intentId, total } = (await deps.repos.orders.findById(orderId))!;
    await deps.processor.refund({ intentId: intentId!, idempotencyKey: "from-the-dashboard" });
    expect(await moveWithRefund("CANCELLED", admin)).toMatchObject({ order: { status: "CANCELLED" }, refund: "made" });
    expect(await deps.repos.orders.findById(orderId)).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect(await deps.repos.refunds.listDue()).toEqual([]);
    expect(deps.processor.refunds.size).toBe(1);
    const [entry] = await auditEntries(deps.repos.audit, { action: "payment.refunded", entityId: orderId });
    expect(entry?.changes).toMatchObject({ intentId, refundId: null, amount: total, refundedAlready: true, from: "PAID", to: "REFUNDED" });
  });

  test("a refund the processor refuses is kept due with the processor's reason, for staff to read", async () => {
    const { deps, orderId, moveWithRefund, pay } = await placed();
    await pay();
    const refusing = {
      ...deps,
      payments: {
        ...deps.payments,
        refund: () =>
          Promise.reject(new DomainError("payment.processor_failed", "Payment processing failed", {}, { cause: new Error("Charge ch_1 has been disputed") })),
      },
    };
    expect(await moveWithRefund("CANCELLED", admin, undefined, refusing)).toMatchObject({ refund: "due" });
    expect(await deps.repos.refunds.listDue()).toEqual([
      expect.objectContaining({ orderId, lastError: "Payment processing failed: Charge ch_1 has been disputed" }),
    ]);
  });

  test("Stripe's charge.refunded heard before the refund's answer, or after it: the same end, one refund", async () => {
    const ends: unknown[] = [];
    for (const webhook of ["before", "after"] as const) {
      const { deps, orderId, moveWithRefund, pay } = await placed();
      await pay();
      const intentId = (await deps.repos.orders.findById(orderId))!.stripePaymentIntentId!;
      const refunded = () =>
        receiveWebhookEvent(deps, {
          provider: "stripe",
          eventId: `evt_refunded_${orderId}`,
          type: "charge.refunded",
          meaning: { kind: "payment", event: { kind: "refunded", intentId, fully: true }, orderId },
        });
      const heardFirst = {
        ...deps,
        payments: {
          ...deps.payments,
          refund: async (input: RefundInput) => (await deps.payments.refund(input), await refunded(), deps.payments.refund(input)),
        },
      };
      const result = await moveWithRefund("CANCELLED", admin, undefined, webhook === "before" ? heardFirst : deps);
      if (webhook === "after") expect(await refunded()).toBe("unchanged");
      const order = (await deps.repos.orders.findById(orderId))!;
      const [refund] = await deps.repos.refunds.listOfOrder(orderId);
      ends.push({
        answer: result.order.paymentStatus,
        status: order.status,
        paymentStatus: order.paymentStatus,
        due: refund?.confirmedAt === null,
        refunds: deps.processor.refunds.size,
      });
    }
    expect(ends).toEqual([
      { answer: "REFUNDED", status: "CANCELLED", paymentStatus: "REFUNDED", due: false, refunds: 1 },
      { answer: "REFUNDED", status: "CANCELLED", paymentStatus: "REFUNDED", due: false, refunds: 1 },
    ]);
  });

  test("cancelling an order whose payment went through meanwhile settles it as paid first: staff may not refund it, an admin refunds it", async () => {
    const { deps, orderId, move, habanero } = await placed();
    const intentId = (await deps.repos.orders.findById(orderId))!.stripePaymentIntentId!;
    await deps.payments.confirmIntent(intentId, "pm_card_visa", "paid-behind-our-back");
    expect(await domainErrorOf(move("CANCELLED", staff))).toMatchObject({ code: "forbidden", details: { required: "financials:refunds" } });
    expect(await deps.repos.orders.findById(orderId)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect((await auditEntries(deps.repos.audit, { action: "payment.succeeded", entityId: orderId }))[0]?.changes).toMatchObject({
      foundWhen: "the order was moved to CANCELLED",
      intentId,
    });
    expect(await move("CANCELLED", admin)).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect([...deps.processor.refunds.values()].map((r) => r.intentId)).toEqual([intentId]);
    expect(await stockOf(deps, habanero.id)).toBe(10);
  });

  test("an order paid through another provider (Square) ends with its payment still PAID and the refund due there flagged: the shop's processor is not asked", async () => {
    const { deps, orderId, move, habanero } = await placed();
    const { total } = (await deps.repos.orders.findById(orderId))!;
    const square = { kind: "succeeded" as const, processor: "square", intentId: "sq-payment-1", amount: total, currency: "usd" };
    expect(
      await receiveWebhookEvent(deps, {
        provider: "square",
        eventId: "sq-evt-1",
        type: "payment.updated",
        meaning: { kind: "payment", event: square, orderId },
      }),
    ).toBe("applied");
    expect(await domainErrorOf(move("CANCELLED", staff))).toMatchObject({ code: "forbidden", details: { required: "financials:refunds" } });
    expect(await move("CANCELLED", admin)).toMatchObject({ status: "CANCELLED", paymentStatus: "PAID" });
    expect(deps.processor.refunds.size).toBe(0);
    expect(await stockOf(deps, habanero.id)).toBe(10);
    const [audit] = await auditEntries(deps.repos.audit, { action: "order.status_update", entityId: orderId });
    expect(audit?.changes).toEqual({ from: "CONFIRMED", to: "CANCELLED", refundDueThrough: "square", flagged: true, by: "ADMIN" });
  });

  test("an unpaid order staff confirmed may end REFUNDED, as the table allows: its goods come back and its intent is stopped, and nothing is refunded", async () => {
    const { deps, orderId, move, habanero } = await placed();
    const { stripePaymentIntentId } = (await deps.repos.orders.findById(orderId))!;
    await move("CONFIRMED");
    expect(await move("REFUNDED", staff)).toMatchObject({ status: "REFUNDED", paymentStatus: "PENDING" });
    expect(deps.processor.intents.get(stripePaymentIntentId!)?.status).toBe("canceled");
    expect(deps.processor.refunds.size).toBe(0);
    expect(await stockOf(deps, habanero.id)).toBe(10);
    const audits = await auditEntries(deps.repos.audit, { action: "order.status_update", entityId: orderId });
    expect(audits.map((a) => a.changes)).toContainEqual({ from: "CONFIRMED", to: "REFUNDED", by: "STAFF" });
  });

  test("a tracking number comes with SHIPPED only, 1 to 100 printable characters, and is never overwritten", async () => {
    const { move, pay } = await placed();
    await pay();
    expect(await domainErrorOf(move("PROCESSING", staff, "EARLY-1"))).toMatchObject({
      code: "order.tracking_not_allowed",
      details: { field: "trackingNumber" },
    });
    await move("PROCESSING", staff, "  ");
    // Invisible characters too: a number pasted with one would never match the carrier's (found by an attack).
    for (const bad of ["T".repeat(101), "AB\u0001C", "AB\u001b[31mRED", "A\nB", "1Z\u200b999", "\u2060", "1Z\u2028999", "\u200f1Z999"]) {
      expect(await domainErrorOf(move("SHIPPED", staff, bad))).toMatchObject({
        code: "invalid_input",
        details: { issues: [{ path: "trackingNumber", message: "must be 1 to 100 printable characters" }] },
      });
    }
    // Kept as the carrier writes it, as its webhook will name it: fullwidth １Ｚ９９９ is 1Z999; a
    // label's spaces go, and small letters are capitals (found by an attack).
    expect(trackingNumberFor("SHIPPED", " 1z 999 aa1 01 2345\u00a06784 ")).toBe("1Z999AA10123456784");
    // Only a to z in capitals, as migration 0024 could write them on any database.
    expect(trackingNumberFor("SHIPPED", "dé-1")).toBe("Dé-1");
    expect(await move("SHIPPED", staff, " \uff11\uff3a\uff19\uff19\uff19 ")).toMatchObject({ trackingNumber: "1Z999" });
    expect(await domainErrorOf(move("DELIVERED", staff, "CHANGED"))).toMatchObject({ code: "order.tracking_not_allowed" });
    expect(await move("DELIVERED")).toMatchObject({ status: "DELIVERED", trackingNumber: "1Z999" });
  });

  test("needs orders:write, and finds an order by its number too (the CLI)", async () => {
    const { deps, orderId, customer } = await placed();
    const number = (await deps.repos.orders.findById(orderId))!.orderNumber;
    expect((await domainErrorOf(changeOrderStatus(deps, customer, { id: orderId }, { status: "CANCELLED" }, origin))).code).toBe("forbidden");
    expect((await changeOrderStatus(deps, SYSTEM_ACTOR, { orderNumber: number }, { status: "CONFIRMED" }, origin)).order).toMatchObject({
      status: "CONFIRMED",
    });
    expect((await domainErrorOf(changeOrderStatus(deps, SYSTEM_ACTOR, { orderNumber: "SF-20200101-ZZZZ" }, { status: "CONFIRMED" }, origin))).code).toBe(
      "order.not_found",
    );
  });
});

describe("a customer cancelling an unpaid order (decisions §15)", () => {
  async function anUnpaidOrder() {
    const s = await shop();
    const line = await s.add(s.habanero.id, 2);
    const placed = await order(s.deps, s.ada.id, { cartItemIds: [line.id] });
    const stored = async () => (await s.deps.repos.orders.findById(placed.orderId))!;
    const intentId = (await stored()).stripePaymentIntentId!;
    const cancel = (userId = s.ada.id) => {
      s.deps.clock.advance(1_000);
      return cancelOrder(s.deps, userId, placed.orderId, origin);
    };
    return { ...s, placed, stored, intentId, cancel };
  }

  test("cancels it, stops its intent at the processor, puts its stock back, audits order.cancel, and answers the order as the cancel left it", async () => {
    const { deps, ada, habanero, placed, stored, intentId, cancel } = await anUnpaidOrder();
    expect(await stockOf(deps, habanero.id)).toBe(8);
    const answer = await cancel();
    expect(answer).toEqual(await stored());
    expect(answer).toMatchObject({ id: placed.orderId, status: "CANCELLED", paymentStatus: "PENDING", updatedAt: deps.clock.now() });
    expect(deps.processor.intents.get(intentId)?.status).toBe("canceled");
    expect(await stockOf(deps, habanero.id)).toBe(10);
    const audits = await auditEntries(deps.repos.audit, { action: "order.cancel" });
    expect(audits).toEqual([
      expect.objectContaining({
        userId: ada.id,
        entityType: "order",
        entityId: placed.orderId,
        ipAddress: origin.ipAddress,
        userAgent: origin.userAgent,
        changes: { orderNumber: placed.orderNumber, from: "PENDING", to: "CANCELLED", paymentStatus: "PENDING" },
      }),
    ]);
  });

  test("an order whose payment was declined is still unpaid, and may be cancelled", async () => {
    const { deps, ada, placed, habanero, cancel } = await anUnpaidOrder();
    await expect(payOrder(deps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_chargeDeclined" }, origin)).rejects.toMatchObject({
      code: "payment.declined",
    });
    expect(await cancel()).toMatchObject({ status: "CANCELLED", paymentStatus: "FAILED" });
    expect(await stockOf(deps, habanero.id)).toBe(10);
  });

  test("refused, changing nothing: unknown 404, another's 403 (staff too), paid 400, cancelled already 400, moved on by staff 400", async () => {
    const { deps, ada, habanero, cancel } = await anUnpaidOrder();
    expect((await domainErrorOf(cancelOrder(deps, ada.id, "z12345678901234567890123", origin))).code).toBe("order.not_found");
    const bob = aUser();
    await deps.repos.users.create(bob);
    for (const someoneElse of [bob.id, staff.userId!]) {
      expect(await domainErrorOf(cancel(someoneElse))).toMatchObject({ code: "forbidden", message: "This order belongs to another user" });
    }
    await cancel();
    expect(await domainErrorOf(cancel())).toMatchObject({
      code: "order.not_cancellable",
      message: "Order cannot be cancelled in its current status",
      details: { status: "CANCELLED", paymentStatus: "PENDING" },
    });
    expect(await stockOf(deps, habanero.id)).toBe(10);
    expect(await auditEntries(deps.repos.audit, { action: "order.cancel" })).toHaveLength(1);

    const paid = await order(deps, ada.id, { cartItemIds: [(await addOne(deps, ada.id, habanero.id)).id] });
    await payOrder(deps, ada.id, { orderId: paid.orderId, paymentMethodId: "pm_card_visa" }, origin);
    expect(await domainErrorOf(cancelOrder(deps, ada.id, paid.orderId, origin))).toMatchObject({
      code: "order.already_paid",
      message: "Order has already been paid",
    });
    const confirmed = await order(deps, ada.id, { cartItemIds: [(await addOne(deps, ada.id, habanero.id)).id] });
    await changeOrderStatus(deps, staff, { id: confirmed.orderId }, { status: "CONFIRMED" }, origin);
    expect(await domainErrorOf(cancelOrder(deps, ada.id, confirmed.orderId, origin))).toMatchObject({
      code: "order.not_cancellable",
      details: { status: "CONFIRMED", paymentStatus: "PENDING" },
    });
    expect([(await deps.repos.orders.findById(paid.orderId))?.status, (await deps.repos.orders.findById(confirmed.orderId))?.status]).toEqual([
      "CONFIRMED",
      "CONFIRMED",
    ]);
  });

  test("an intent found paid at the processor settles the order as paid, and it is not cancelled: 400 Order has already been paid", async () => {
    const { deps, habanero, placed, stored, intentId, cancel } = await anUnpaidOrder();
    await deps.payments.confirmIntent(intentId, "pm_card_visa", "paid-behind-our-back");
    expect(await domainErrorOf(cancel())).toMatchObject({ code: "order.already_paid", message: "Order has already been paid" });
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect(await stockOf(deps, habanero.id)).toBe(8);
    expect((await auditEntries(deps.repos.audit, { action: "payment.succeeded", entityId: placed.orderId }))[0]?.changes).toMatchObject({
      foundWhen: "the customer cancelled the order",
    });
    expect(await auditEntries(deps.repos.audit, { action: "order.cancel" })).toEqual([]);
  });

  test("a payment still processing at the processor is 409 and the order stays as it was; a processor that cannot be reached changes nothing", async () => {
    const { deps, habanero, stored, intentId, cancel } = await anUnpaidOrder();
    const processing = {
      ...deps,
      payments: { ...deps.payments, cancelIntent: async () => ({ ...deps.processor.intents.get(intentId)!, status: "processing" as const }) },
    };
    expect((await domainErrorOf(cancelOrder(processing, (await stored()).userId, (await stored()).id, origin))).code).toBe("payment.in_progress");
    const unreachable = {
      ...deps,
      payments: { ...deps.payments, cancelIntent: () => Promise.reject(new DomainError("payment.processor_failed", "Payment processing failed")) },
    };
    expect((await domainErrorOf(cancelOrder(unreachable, (await stored()).userId, (await stored()).id, origin))).code).toBe("payment.processor_failed");
    expect([(await stored()).status, await stockOf(deps, habanero.id)]).toEqual(["PENDING", 8]);
    expect((await cancel()).status).toBe("CANCELLED");
  });

  test("an order given a new payment intent while its old one was being stopped has that one stopped too", async () => {
    const { deps, ada, placed, stored, intentId } = await anUnpaidOrder();
    const { racing, fresh } = freshIntentWhileStopping(deps, placed.orderId);
    expect(await cancelOrder(racing, ada.id, placed.orderId, origin)).toMatchObject({ status: "CANCELLED", stripePaymentIntentId: fresh() });
    expect([intentId, fresh()!].map((id) => deps.processor.intents.get(id)?.status)).toEqual(["canceled", "canceled"]);
    expect((await stored()).status).toBe("CANCELLED");
  });

  test("an order given a new intent at each try, the last one paid meanwhile: 400 Order has already been paid, as when found paid at once, not 409 (found by a review)", async () => {
    const { deps, ada, placed, stored } = await anUnpaidOrder();
    let fresh = 0;
    const racing = {
      ...deps,
      payments: {
        ...deps.payments,
        cancelIntent: async (id: string) => {
          const stopped = await deps.payments.cancelIntent(id);
          if (fresh < 2) {
            fresh += 1;
            const next = await deps.payments.createIntent({
              amount: stopped.amount,
              currency: "usd",
              metadata: { orderId: placed.orderId },
              idempotencyKey: `fresh-${fresh}`,
            });
            // The second new intent is paid before the next try stops it.
            if (fresh === 2) await deps.payments.confirmIntent(next.id, "pm_card_visa", "paid-meanwhile");
            await deps.repos.orders.update(placed.orderId, { stripePaymentIntentId: next.id, updatedAt: deps.clock.now() });
          }
          return stopped;
        },
      },
    };
    expect(await domainErrorOf(cancelOrder(racing, ada.id, placed.orderId, origin))).toMatchObject({
      code: "order.already_paid",
      message: "Order has already been paid",
    });
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("cancelling makes room under MAX_UNPAID_ORDERS", async () => {
    const { deps, ada, habanero, placed, add: addLine } = await anUnpaidOrder();
    for (let i = 0; i < 2; i++) await order(deps, ada.id, { cartItemIds: [(await addLine(habanero.id, 1)).id] });
    const line = await addLine(habanero.id, 1);
    expect((await domainErrorOf(order(deps, ada.id, { cartItemIds: [line.id] }))).code).toBe("order.too_many_unpaid");
    await cancelOrder(deps, ada.id, placed.orderId, origin);
    expect(await order(deps, ada.id, { cartItemIds: [line.id] })).toMatchObject({ orderId: expect.any(String) });
  });
});

describe("unpaid orders running out of time", () => {
  test("are cancelled after the payment time, stock released, intent cancelled; younger and paid ones are left alone", async () => {
    const { deps, ada, habanero, add } = await shop();
    const old = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 2)).id] });
    const paidLate = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] });
    const paidIntent = (await deps.repos.orders.findById(paidLate.orderId))!.stripePaymentIntentId!;
    await deps.payments.confirmIntent(paidIntent, "pm_card_visa", "late");
    deps.clock.advance(59 * 60_000);
    const young = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] });
    deps.clock.advance(60_001);

    expect(await stockOf(deps, habanero.id)).toBe(6);
    expect(await expireUnpaidOrders(deps, 60)).toEqual({ expired: [old.orderNumber], paidMeanwhile: [paidLate.orderNumber] });
    expect(await stockOf(deps, habanero.id)).toBe(8);
    expect((await deps.repos.orders.findById(old.orderId))?.status).toBe("CANCELLED");
    expect((await deps.repos.orders.findById(young.orderId))?.status).toBe("PENDING");
    expect(deps.processor.intents.get((await deps.repos.orders.findById(old.orderId))!.stripePaymentIntentId!)?.status).toBe("canceled");
    const [audit] = await auditEntries(deps.repos.audit, { action: "order.expire" });
    expect(audit).toMatchObject({ userId: null, entityId: old.orderId, changes: { orderNumber: old.orderNumber, to: "CANCELLED" } });
    // The order paid meanwhile is settled as paid, as its webhook would settle it, and leaves the sweep.
    expect(await deps.repos.orders.findById(paidLate.orderId)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect((await auditEntries(deps.repos.audit, { action: "payment.succeeded", entityId: paidLate.orderId }))[0]?.changes).toMatchObject({
      foundWhen: "the order's payment time ran out",
    });
    expect(await expireUnpaidOrders(deps, 60)).toEqual({ expired: [], paidMeanwhile: [] });
  });

  test("an order whose payment is still processing at the processor is not expired: it stays PENDING and keeps its stock, for the payment's outcome", async () => {
    const { deps, ada, habanero, add } = await shop();
    const placed = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 2)).id] });
    deps.clock.advance(61 * 60_000);
    // A bank debit under way cannot be cancelled: the processor answers the intent as it is.
    const processing = {
      ...deps,
      payments: { ...deps.payments, cancelIntent: async (id: string) => ({ ...(await deps.payments.retrieveIntent(id)), status: "processing" as const }) },
    };
    expect(await expireUnpaidOrders(processing, 60)).toEqual({ expired: [], paidMeanwhile: [] });
    expect(await deps.repos.orders.findById(placed.orderId)).toMatchObject({ status: "PENDING", paymentStatus: "PENDING" });
    expect(await stockOf(deps, habanero.id)).toBe(8);
    expect(await auditEntries(deps.repos.audit, { action: "order.expire" })).toEqual([]);
  });

  test("an order given a new payment intent while its old one was being stopped is not expired then: the new intent stays payable", async () => {
    const { deps, ada, habanero, add } = await shop();
    const placed = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 2)).id] });
    deps.clock.advance(61 * 60_000);
    const { racing, fresh } = freshIntentWhileStopping(deps, placed.orderId);
    expect(await expireUnpaidOrders(racing, 60)).toEqual({ expired: [], paidMeanwhile: [] });
    expect(await deps.repos.orders.findById(placed.orderId)).toMatchObject({ status: "PENDING", stripePaymentIntentId: fresh() });
    expect(await stockOf(deps, habanero.id)).toBe(8);
    expect(deps.processor.intents.get(fresh()!)?.status).toBe("requires_payment_method");
    // The next run stops the new intent too, and expires the order.
    expect(await expireUnpaidOrders(deps, 60)).toEqual({ expired: [placed.orderNumber], paidMeanwhile: [] });
    expect(deps.processor.intents.get(fresh()!)?.status).toBe("canceled");
    expect(await stockOf(deps, habanero.id)).toBe(10);
  });

  test("orders the processor cannot answer for are passed over, and the sweep pages on past them", async () => {
    const { deps, ada, habanero, add } = await shop();
    await deps.repos.products.update(habanero.id, { inventory: 1_000, updatedAt: new Date() });
    const stuck: string[] = [];
    const roomy = { ...DEFAULT_ORDER_SETTINGS, maxUnpaidOrders: 200 };
    for (let i = 0; i < 120; i++) {
      const placed = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] }, roomy);
      stuck.push((await deps.repos.orders.findById(placed.orderId))!.stripePaymentIntentId!);
    }
    const last = await order(deps, ada.id, { cartItemIds: [(await add(habanero.id, 1)).id] }, roomy);
    deps.clock.advance(61 * 60_000);
    const unreachable = {
      ...deps,
      payments: {
        ...deps.payments,
        cancelIntent: (id: string) => (stuck.includes(id) ? Promise.reject(new Error("timeout")) : deps.payments.cancelIntent(id)),
      },
    };
    expect(await expireUnpaidOrders(unreachable, 60)).toEqual({ expired: [last.orderNumber], paidMeanwhile: [] });
    expect((await expireUnpaidOrders(deps, 60)).expired).toHaveLength(120);
    expect([...deps.state.orders.values()].every((o) => o.status === "CANCELLED")).toBe(true);
    expect(await stockOf(deps, habanero.id)).toBe(1_000);
  });
});
