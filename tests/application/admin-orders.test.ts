import { describe, expect, test } from "bun:test";
import { exportOrders } from "../../src/application/admin/export-orders.ts";
import { listOrderQueue } from "../../src/application/admin/list-orders.ts";
import { getOrderDetail } from "../../src/application/admin/order-detail.ts";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { changeOrderStatus } from "../../src/application/orders/change-order-status.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import type { OrderQueueFilter } from "../../src/application/ports/orders.ts";
import { recordAudit } from "../../src/application/audit.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, type Permission } from "../../src/domain/permissions.ts";
import { latePaymentRefundKey } from "../../src/domain/refund.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { auditEntries } from "../support/audit.ts";

const origin = { ipAddress: "203.0.113.9", userAgent: "back-office-test" };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
const actor = (role: Actor["role"], permissions: readonly Permission[], userId = `${role.toLowerCase()}-1`): Actor => ({
  userId,
  role,
  permissions: new Set(permissions),
});
const staff = actor("STAFF", DEFAULT_ROLE_PERMISSIONS.STAFF);
const admin = actor("ADMIN", DEFAULT_ROLE_PERMISSIONS.ADMIN);
const customerActor = actor("CUSTOMER", []);
const firstPage = { page: 1, limit: 20 };

/** Two customers, three orders a day apart: Ada's pending, Ada's paid, Bo's pending. */
async function shop() {
  const deps = createMemoryDeps();
  const ada = aUser({ email: "ada@example.com", name: "Ada Lovelace" });
  const bo = aUser({ email: "bo@example.org", name: "Bo Diddley" });
  const sauce = aProduct({ name: "Habanero", price: 1299, inventory: 50 });
  const salsa = aProduct({ name: 'Salsa, "Verde"', price: 899, inventory: 50 });
  for (const user of [ada, bo]) await deps.repos.users.create(user);
  for (const product of [sauce, salsa]) await deps.repos.products.create(product);
  async function anOrder(userId: string) {
    deps.clock.advance(86_400_000);
    const first = await addToCart(deps, userId, { productId: sauce.id, quantity: 2 }, origin);
    deps.clock.advance(1_000);
    const lines = [first, await addToCart(deps, userId, { productId: salsa.id, quantity: 1 }, origin)];
    return placeOrder(deps, DEFAULT_ORDER_SETTINGS, userId, { cartItemIds: lines.map((l) => l.id), shippingAddress: texas }, origin);
  }
  const adaPending = await anOrder(ada.id);
  const adaPaid = await anOrder(ada.id);
  deps.clock.advance(1_000);
  await payOrder(deps, ada.id, { orderId: adaPaid.orderId, paymentMethodId: "pm_card_visa" }, origin);
  const boPending = await anOrder(bo.id);
  return { deps, ada, bo, orders: { adaPending, adaPaid, boPending } };
}

const numbersOf = async (deps: MemoryDeps, filter: OrderQueueFilter) => (await listOrderQueue(deps, staff, filter, firstPage)).items.map((o) => o.orderNumber);

describe("the orders queue (GET /api/admin/orders)", () => {
  test("every customer's orders newest first, with the customer, and the total; page by page", async () => {
    const { deps, ada, bo, orders } = await shop();
    const page = await listOrderQueue(deps, staff, {}, firstPage);
    expect(page.total).toBe(3);
    expect(page.items.map((o) => [o.orderNumber, o.customer])).toEqual([
      [orders.boPending.orderNumber, { id: bo.id, email: "bo@example.org", name: "Bo Diddley" }],
      [orders.adaPaid.orderNumber, { id: ada.id, email: "ada@example.com", name: "Ada Lovelace" }],
      [orders.adaPending.orderNumber, { id: ada.id, email: "ada@example.com", name: "Ada Lovelace" }],
    ]);
    expect(page.items[1]).toMatchObject({
      status: "CONFIRMED",
      paymentStatus: "PAID",
      items: [{ productName: "Habanero" }, { productName: 'Salsa, "Verde"' }],
    });
    const second = await listOrderQueue(deps, staff, {}, { page: 2, limit: 2 });
    expect([second.total, second.items.map((o) => o.orderNumber)]).toEqual([3, [orders.adaPending.orderNumber]]);
  });

  test("each filter alone, and all of them together", async () => {
    const { deps, ada, orders } = await shop();
    const [pending, paid, bos] = [orders.adaPending.orderNumber, orders.adaPaid.orderNumber, orders.boPending.orderNumber];
    const paidAt = (await deps.repos.orders.findById(orders.adaPaid.orderId))!.createdAt;
    expect(await numbersOf(deps, { statuses: ["PENDING"] })).toEqual([bos, pending]);
    expect(await numbersOf(deps, { statuses: ["CONFIRMED", "SHIPPED"] })).toEqual([paid]);
    expect(await numbersOf(deps, { paymentStatuses: ["PAID", "REFUNDED"] })).toEqual([paid]);
    expect(await numbersOf(deps, { q: "ADA@" })).toEqual([paid, pending]);
    expect(await numbersOf(deps, { q: "diddley" })).toEqual([bos]);
    expect(await numbersOf(deps, { q: bos.slice(-6).toLowerCase() })).toEqual([bos]);
    expect(await numbersOf(deps, { from: paidAt })).toEqual([bos, paid]);
    expect(await numbersOf(deps, { to: paidAt })).toEqual([pending]);
    expect(await numbersOf(deps, { customerId: ada.id })).toEqual([paid, pending]);
    expect(
      await numbersOf(deps, {
        statuses: ["PENDING", "CONFIRMED"],
        paymentStatuses: ["PENDING"],
        q: "lovelace",
        from: new Date(0),
        to: new Date(paidAt.getTime() + 1),
        customerId: ada.id,
      }),
    ).toEqual([pending]);
  });

  test("needs orders:read: a customer is refused", async () => {
    const { deps } = await shop();
    expect((await domainErrorOf(listOrderQueue(deps, customerActor, {}, firstPage))).code).toBe("forbidden");
  });
});

describe("an order's detail (GET /api/admin/orders/:id)", () => {
  test("the order and its customer, its payment facts, its refunds due or made, and its history oldest first", async () => {
    const { deps, ada, orders } = await shop();
    const id = orders.adaPaid.orderId;
    deps.clock.advance(1_000);
    await changeOrderStatus(deps, admin, { id }, { status: "CANCELLED" }, origin);
    const paid = (await deps.repos.orders.findById(id))!;
    // Money that came in again after the order ended: owed back, not yet sent.
    deps.clock.advance(60_000);
    const late = await deps.uow.transaction((tx) =>
      tx.refunds.markDue(
        {
          id: "late-1",
          orderId: id,
          intentId: "pi_late",
          idempotencyKey: latePaymentRefundKey("pi_late"),
          reason: "late_payment",
          amount: 100,
          requestedAt: deps.clock.now(),
        },
        deps.clock.now(),
      ),
    );
    deps.clock.advance(1_000);
    await deps.uow.transaction(async (tx) => {
      await recordAudit(tx, deps, { userId: null, action: "webhook.stripe", entityType: "order", entityId: id, changes: { eventId: "evt_1" }, origin });
      // Not about this order, or not of its history.
      await recordAudit(tx, deps, { userId: null, action: "webhook.stripe", entityType: "order", entityId: orders.adaPending.orderId, origin });
      await recordAudit(tx, deps, { userId: ada.id, action: "cart.add", entityType: "cart_item", entityId: id, origin });
    });

    const detail = await getOrderDetail(deps, staff, id);
    expect(detail.order).toEqual({ ...paid, customer: { id: ada.id, email: "ada@example.com", name: "Ada Lovelace" } });
    expect(detail.order).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED", paidVia: "stripe", paymentAttempts: 1 });
    expect(detail.refunds.map((r) => [r.reason, r.confirmedAt === null ? "due" : "made"])).toEqual([
      ["order_ended", "made"],
      ["late_payment", "due"],
    ]);
    expect(detail.refunds[1]).toEqual(late!);
    const actions = detail.history.map((e) => e.action);
    // The move and its refund are made in the same instant here (a fixed clock).
    expect([...actions.slice(0, 2), actions.slice(2, 4).sort(), actions[4]]).toEqual([
      "order.create",
      "payment.succeeded",
      ["order.status_update", "payment.refunded"],
      "webhook.stripe",
    ]);
    expect(detail.history.every((e) => e.entityId === id)).toBe(true);
  });

  test("an unknown order is not found; a customer is refused, even for an order of their own", async () => {
    const { deps, orders } = await shop();
    expect((await domainErrorOf(getOrderDetail(deps, staff, "z12345678901234567890123"))).code).toBe("order.not_found");
    const ada = actor("CUSTOMER", [], (await deps.repos.orders.findById(orders.adaPending.orderId))!.userId);
    expect((await domainErrorOf(getOrderDetail(deps, ada, orders.adaPending.orderId))).code).toBe("forbidden");
  });
});

describe("the orders export (GET /api/admin/orders/export, orders:export)", () => {
  test("audited before anything is read, with who and the filters given; then the matching lines, batch by batch", async () => {
    const { deps, ada, orders } = await shop();
    const from = new Date("2026-11-01T00:00:00Z");
    const exported = await exportOrders(deps, staff, { statuses: ["PENDING"], q: "ada", from, customerId: ada.id }, origin);
    const [entry] = await auditEntries(deps.repos.audit, { action: "order.export" });
    expect(entry).toMatchObject({
      userId: "staff-1",
      entityType: "order",
      entityId: null,
      changes: { by: "STAFF", filters: { statuses: ["PENDING"], q: "ada", from: "2026-11-01T00:00:00.000Z", customerId: ada.id } },
      ...origin,
      createdAt: exported.startedAt,
    });
    const lines = [];
    for await (const batch of exported.lines) lines.push(...batch);
    expect(lines.map((l) => [l.order.orderNumber, l.item.productName, l.customer.email])).toEqual([
      [orders.adaPending.orderNumber, "Habanero", "ada@example.com"],
      [orders.adaPending.orderNumber, 'Salsa, "Verde"', "ada@example.com"],
    ]);
  });

  test("needs orders:export: orders:read alone is refused, and nothing is audited", async () => {
    const { deps } = await shop();
    const reader = actor("STAFF", ["orders:read"]);
    expect((await domainErrorOf(exportOrders(deps, reader, {}, origin))).code).toBe("forbidden");
    expect(await auditEntries(deps.repos.audit, { action: "order.export" })).toEqual([]);
  });
});
