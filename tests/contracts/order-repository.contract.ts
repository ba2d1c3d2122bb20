import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { Address } from "../../src/domain/address.ts";
import type { AuditEntry } from "../../src/domain/audit.ts";
import { type Order, newOrder } from "../../src/domain/order.ts";
import type { Product } from "../../src/domain/product.ts";
import type { User } from "../../src/domain/user.ts";
import { aProduct, aUser, orderedLinesOf } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";
import { auditEntries } from "../support/audit.ts";

const address: Address = { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" };
const billing: Address = { ...address, address1: "9 Bill Rd", address2: "Suite 2" };
const anAuditEntry = (userId: string, orderId: string): AuditEntry => ({
  id: cuid2Ids.next(),
  userId,
  action: "payment.succeeded",
  entityType: "order",
  entityId: orderId,
  changes: { intentId: "pi_1", from: { status: "PENDING" } },
  ipAddress: "203.0.113.9",
  userAgent: "contract",
  createdAt: new Date("2026-11-24T08:00:00.123Z"),
});
let sequence = 0;

export function orderRepositoryContract(target: () => ContractTarget) {
  describe("OrderRepository", () => {
    const repo = () => target().repos.orders;

    async function stored(user: User, products: Product[], overrides: Partial<Order> = {}): Promise<Order> {
      const at = new Date(Date.UTC(2026, 10, 23, 12, 0, ++sequence));
      const order = {
        ...newOrder({
          id: cuid2Ids.next(),
          orderNumber: `SF-20261123-${String(sequence).padStart(4, "0")}`,
          userId: user.id,
          itemIds: products.map(() => cuid2Ids.next()),
          lines: orderedLinesOf(products),
          shippingAddress: address,
          billingAddress: billing,
          tax: 123,
          notes: "Leave at the door",
          at,
        }),
        ...overrides,
      };
      expect(await repo().create(order)).toBe(true);
      return order;
    }

    async function aShopper() {
      const user = aUser();
      const products = [aProduct({ name: "Ghost Pepper" }), aProduct({ name: "Verde" })];
      await target().repos.users.create(user);
      for (const p of products) await target().repos.products.create(p);
      return { user, products };
    }

    test("an order reads back whole, by id and by number, each item with its product as it is now", async () => {
      const { user, products } = await aShopper();
      const order = await stored(user, products);
      await target().repos.products.update(products[0]!.id, { name: "Ghost Pepper Reserve", updatedAt: new Date() });
      const expected = {
        ...order,
        items: order.items.map((item, i) => ({
          ...item,
          product: {
            id: products[i]!.id,
            name: i === 0 ? "Ghost Pepper Reserve" : "Verde",
            slug: products[i]!.slug,
            featuredImage: products[i]!.featuredImage,
            heatLevel: products[i]!.heatLevel,
          },
        })),
      };
      expect(await repo().findById(order.id)).toEqual(expected);
      expect(await repo().findByNumber(order.orderNumber)).toEqual(expected);
      expect(expected.items[0]?.productName).toBe("Ghost Pepper");
      expect(await repo().findById("z12345678901234567890123")).toBeNull();
    });

    test("a taken order number writes nothing and says so", async () => {
      const { user, products } = await aShopper();
      const first = await stored(user, products);
      const clash = newOrder({
        id: cuid2Ids.next(),
        orderNumber: first.orderNumber,
        userId: user.id,
        itemIds: [cuid2Ids.next()],
        lines: [{ productId: products[0]!.id, quantity: 1, product: { name: "x", sku: "x", featuredImage: "https://img.example.com/x.jpg", price: 100 } }],
        shippingAddress: address,
        billingAddress: address,
        tax: 0,
        notes: null,
        at: new Date(),
      });
      expect(await repo().create(clash)).toBe(false);
      expect(await repo().findById(clash.id)).toBeNull();
    });

    test("list: one user's, filtered by status and payment status, paged and sorted by creation, with the total", async () => {
      const { user, products } = await aShopper();
      const other = aUser();
      await target().repos.users.create(other);
      const [a, b, c] = [
        await stored(user, products),
        await stored(user, products, { status: "CANCELLED" }),
        await stored(user, products, { paymentStatus: "FAILED" }),
      ];
      await stored(other, products);
      const ids = async (filter: Partial<Parameters<ReturnType<typeof repo>["list"]>[0]>) => {
        const result = await repo().list({ skip: 0, take: null, sortOrder: "desc", userId: user.id, ...filter });
        return [result.total, result.orders.map((o) => o.id)];
      };
      expect(await ids({})).toEqual([3, [c.id, b.id, a.id]]);
      expect(await ids({ sortOrder: "asc", skip: 1, take: 1 })).toEqual([3, [b.id]]);
      expect(await ids({ status: "CANCELLED" })).toEqual([1, [b.id]]);
      expect(await ids({ paymentStatus: "FAILED" })).toEqual([1, [c.id]]);
      expect(await ids({ skip: 5 })).toEqual([3, []]);
      expect((await repo().list({ skip: 0, take: null, sortOrder: "asc" })).total).toBe(4);
      expect((await repo().list({ skip: 0, take: 2, sortOrder: "asc", userId: user.id })).orders[0]?.items).toHaveLength(2);
    });

    test("everyOrder: every customer's orders, newest first then by id, in keyset batches, each once; of one status when asked", async () => {
      const { user, products } = await aShopper();
      const other = aUser();
      await target().repos.users.create(other);
      const a = await stored(user, products);
      const b = await stored(other, products);
      const c = await stored(user, products);
      // Made in the same instant as c: the id decides.
      const d = await stored(other, products, { createdAt: c.createdAt });
      const e = await stored(user, products, { status: "CANCELLED" });
      const f = await stored(other, products, { status: "CANCELLED" });
      const g = await stored(user, products, { status: "CANCELLED" });
      const batches = async (filter: { status?: "CANCELLED" }) => {
        const read: string[][] = [];
        for await (const batch of repo().everyOrder(filter, 2)) read.push(batch.map((o) => o.id));
        return read;
      };
      const sameInstant = [c.id, d.id].sort().reverse();
      expect(await batches({})).toEqual([[g.id, f.id], [e.id, sameInstant[0]!], [sameInstant[1]!, b.id], [a.id]]);
      expect(await batches({ status: "CANCELLED" })).toEqual([[g.id, f.id], [e.id]]);
      const [first] = (await repo().everyOrder({}, 1).next()).value ?? [];
      expect(first).toMatchObject({ id: g.id, items: [expect.anything(), expect.anything()] });
    });

    test("update changes what it is given; lock returns the order with its items", async () => {
      const { user, products } = await aShopper();
      const order = await stored(user, products);
      const later = new Date("2026-11-24T08:00:00Z");
      await repo().update(order.id, { status: "SHIPPED", trackingNumber: "1Z999", stripePaymentIntentId: "pi_123", updatedAt: later });
      await target().uow.transaction(async (tx) => {
        expect(await tx.orders.lock(order.id)).toEqual({
          ...order,
          status: "SHIPPED",
          trackingNumber: "1Z999",
          stripePaymentIntentId: "pi_123",
          updatedAt: later,
        });
        expect(await tx.orders.lock("z12345678901234567890123")).toBeNull();
      });
    });

    test("read returns the order as lock does, with its version; updateAt of that version writes the changes and the audit entry together", async () => {
      const { user, products } = await aShopper();
      const order = await stored(user, products);
      const read = (await target().uow.read((db) => db.orders.read(order.id)))!;
      expect(read.order).toEqual(order);
      expect(await target().uow.read((db) => db.orders.read("z12345678901234567890123"))).toBeNull();
      const paidAt = new Date("2026-11-24T08:00:00.123Z");
      const entry = anAuditEntry(user.id, order.id);
      const changes = { status: "CONFIRMED", paymentStatus: "PAID", paidAt, updatedAt: paidAt } as const;
      const version = await target().uow.write((db) => db.orders.updateAt(order.id, read.version, changes, entry));
      expect(version).toEqual(expect.any(String));
      expect(version).not.toBe(read.version);
      expect(await target().uow.read((db) => db.orders.read(order.id))).toEqual({ order: { ...order, ...changes }, version: version! });
      expect(await auditEntries(target().repos.audit, { entityId: order.id })).toEqual([entry]);
      // The items carry the paid time too: the sales report counts the order's units on the day it was paid.
      const day = [new Date("2026-11-24T00:00:00Z"), new Date("2026-11-25T00:00:00Z")];
      expect(await target().repos.sales.salesIn(day, 10)).toMatchObject({ sold: [{ period: 0, orders: 1, units: 3 }] });
    });

    test("updateAt of a version another write has passed writes nothing, nor its audit entry; a lock alone passes no version", async () => {
      const { user, products } = await aShopper();
      const order = await stored(user, products);
      const at = new Date("2026-11-24T09:00:00Z");
      const first = (await target().uow.read((db) => db.orders.read(order.id)))!;
      await target().uow.transaction(async (tx) => void (await tx.orders.lock(order.id)));
      const second = (await target().uow.write((db) => db.orders.updateAt(order.id, first.version, { paymentAttempts: 1, updatedAt: at }, null)))!;
      expect(second).toEqual(expect.any(String));
      // Each way another writer may have moved the order on meanwhile.
      const others: Array<(version: string) => Promise<unknown>> = [
        () => target().uow.transaction((tx) => tx.orders.update(order.id, { trackingNumber: "1Z999", updatedAt: at })),
        () => target().uow.write((db) => db.orders.attachPaymentIntent(order.id, "pi_meanwhile", at)),
        (version) => target().uow.write((db) => db.orders.updateAt(order.id, version, { paymentStartedAt: at, updatedAt: at }, null)),
      ];
      let version = second;
      for (const other of others) {
        await other(version);
        const stale = anAuditEntry(user.id, order.id);
        expect(await target().uow.write((db) => db.orders.updateAt(order.id, version, { status: "CANCELLED", updatedAt: at }, stale))).toBeNull();
        const now = (await target().uow.read((db) => db.orders.read(order.id)))!;
        expect(now.order.status).toBe("PENDING");
        expect(now.version).not.toBe(version);
        version = now.version;
      }
      expect(await target().repos.orders.findById(order.id)).toMatchObject({
        trackingNumber: "1Z999",
        stripePaymentIntentId: "pi_meanwhile",
        paymentAttempts: 1,
        paymentStartedAt: at,
      });
      expect(await auditEntries(target().repos.audit, { entityId: order.id })).toEqual([]);
    });

    test("idOfPaymentIntent finds the order whose current intent it is", async () => {
      const { user, products } = await aShopper();
      const order = await stored(user, products, { stripePaymentIntentId: "pi_current" });
      expect(await repo().idOfPaymentIntent("pi_current")).toBe(order.id);
      expect(await repo().idOfPaymentIntent("pi_unknown")).toBeNull();
    });

    test("idsOfTrackingNumber finds every order shipped with it (one parcel may carry several), in id order", async () => {
      const { user, products } = await aShopper();
      const [first, second, other] = [await stored(user, products), await stored(user, products), await stored(user, products)];
      const ship = (order: Order, trackingNumber: string) => repo().update(order.id, { status: "SHIPPED", trackingNumber, updatedAt: new Date() });
      await ship(first, "1ZPARCEL");
      await ship(second, "1ZPARCEL");
      await ship(other, "1ZOTHER");
      const parcel = [first, second];
      expect(await repo().idsOfTrackingNumber("1ZPARCEL")).toEqual(parcel.map((o) => o.id).sort());
      expect(await repo().idsOfTrackingNumber("1ZNONE")).toEqual([]);
    });

    test("attachPaymentIntent stores the intent of a PENDING order only, in a transaction or as a write of its own", async () => {
      const { user, products } = await aShopper();
      const pending = await stored(user, products);
      const cancelled = await stored(user, products, { status: "CANCELLED" });
      const at = new Date("2026-11-24T09:00:00Z");
      expect(await target().uow.write((db) => db.orders.attachPaymentIntent(pending.id, "pi_attached", at))).toBe(true);
      expect(await target().uow.write((db) => db.orders.attachPaymentIntent(cancelled.id, "pi_too_late", at))).toBe(false);
      expect(await target().uow.transaction((tx) => tx.orders.attachPaymentIntent(cancelled.id, "pi_too_late", at))).toBe(false);
      expect(await repo().findById(pending.id)).toMatchObject({ stripePaymentIntentId: "pi_attached", updatedAt: at });
      expect(await repo().findById(cancelled.id)).toMatchObject({ stripePaymentIntentId: null, updatedAt: cancelled.updatedAt });
    });

    test("attachPaymentIntent of the intent the order holds already is true (housekeeping stored it first); of another, false", async () => {
      const { user, products } = await aShopper();
      const order = await stored(user, products);
      const at = new Date("2026-11-24T09:00:00Z");
      expect(await target().uow.transaction((tx) => tx.orders.attachPaymentIntent(order.id, "pi_first", at))).toBe(true);
      expect(await target().uow.transaction((tx) => tx.orders.attachPaymentIntent(order.id, "pi_first", at))).toBe(true);
      expect(await target().uow.transaction((tx) => tx.orders.attachPaymentIntent(order.id, "pi_other", at))).toBe(false);
      expect((await repo().findById(order.id))?.stripePaymentIntentId).toBe("pi_first");
    });

    test("findUnpaidBefore: PENDING orders with payment PENDING or FAILED made before the cut-off, oldest first", async () => {
      const { user, products } = await aShopper();
      const pending = await stored(user, products);
      const failed = await stored(user, products, { paymentStatus: "FAILED" });
      await stored(user, products, { paymentStatus: "PAID", status: "CONFIRMED" });
      await stored(user, products, { status: "CANCELLED" });
      const recent = await stored(user, products);
      const found = await repo().findUnpaidBefore(recent.createdAt, 10);
      expect(found).toEqual([pending, failed].map((o) => ({ id: o.id, orderNumber: o.orderNumber, stripePaymentIntentId: null, createdAt: o.createdAt })));
      expect(await repo().findUnpaidBefore(recent.createdAt, 1)).toEqual([found[0]!]);
    });

    test("unpaidOf: one customer's PENDING orders with payment PENDING or FAILED, oldest first", async () => {
      const { user, products } = await aShopper();
      const other = await aShopper();
      const pending = await stored(user, products);
      await stored(user, products, { paymentStatus: "PAID", status: "CONFIRMED" });
      await stored(user, products, { status: "CANCELLED" });
      await stored(user, products, { status: "CONFIRMED" });
      await stored(other.user, other.products);
      const failed = await stored(user, products, { paymentStatus: "FAILED" });
      expect(await repo().unpaidOf(user.id, 10)).toEqual([pending, failed].map((o) => ({ id: o.id, orderNumber: o.orderNumber })));
      expect(await repo().unpaidOf(user.id, 1)).toEqual([{ id: pending.id, orderNumber: pending.orderNumber }]);
      expect(await repo().unpaidOf("no-such-user", 10)).toEqual([]);
    });

    test("findUnpaidBefore pages on after a given order, past orders made in the same instant", async () => {
      const { user, products } = await aShopper();
      const first = await stored(user, products);
      const twins = [await stored(user, products, { createdAt: first.createdAt }), await stored(user, products, { createdAt: first.createdAt })];
      const cutOff = new Date(first.createdAt.getTime() + 1);
      const all = await repo().findUnpaidBefore(cutOff, 10);
      expect(all.map((o) => o.id).sort()).toEqual([first, ...twins].map((o) => o.id).sort());
      const paged = [...(await repo().findUnpaidBefore(cutOff, 2))];
      paged.push(...(await repo().findUnpaidBefore(cutOff, 2, paged.at(-1))));
      expect(paged).toEqual(all);
      expect(await repo().findUnpaidBefore(cutOff, 2, all.at(-1))).toEqual([]);
    });

    test("findWithoutIntentBy: PENDING orders, payment PENDING, without a payment intent, made by the given time, oldest first, paged", async () => {
      const { user, products } = await aShopper();
      const stranded = await stored(user, products);
      await stored(user, products, { stripePaymentIntentId: "pi_stored" });
      await stored(user, products, { paymentStatus: "FAILED" });
      await stored(user, products, { status: "CANCELLED" });
      const twin = await stored(user, products, { createdAt: stranded.createdAt });
      await stored(user, products);
      const found = await repo().findWithoutIntentBy(stranded.createdAt, 10);
      const expected = [stranded, twin]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((o) => ({ id: o.id, orderNumber: o.orderNumber, total: o.total, createdAt: o.createdAt }));
      expect(found).toEqual(expected);
      expect(await repo().findWithoutIntentBy(stranded.createdAt, 1, found[0])).toEqual([expected[1]!]);
      expect(await repo().findWithoutIntentBy(stranded.createdAt, 1, found[1])).toEqual([]);
    });

    test("findPaymentsStartedBy: orders of any status whose payment attempt began by the given time and is still marked, oldest attempt first, paged", async () => {
      const { user, products } = await aShopper();
      const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 13, 0, seconds));
      const started = async (startedAt: Date | null, overrides: Partial<Order> = {}) => {
        const order = await stored(user, products, overrides);
        await target().uow.transaction((tx) => tx.orders.update(order.id, { paymentAttempts: 2, paymentStartedAt: startedAt, updatedAt: at(0) }));
        return order;
      };
      const late = await started(at(5), { stripePaymentIntentId: "pi_late" });
      const early = await started(at(1), { status: "CANCELLED" });
      await started(null);
      const onTheDot = await started(at(10));
      await started(at(11));
      const found = await repo().findPaymentsStartedBy(at(10), 10);
      expect(found).toEqual([
        { id: early.id, orderNumber: early.orderNumber, total: early.total, stripePaymentIntentId: null, paymentAttempts: 2, paymentStartedAt: at(1) },
        { id: late.id, orderNumber: late.orderNumber, total: late.total, stripePaymentIntentId: "pi_late", paymentAttempts: 2, paymentStartedAt: at(5) },
        {
          id: onTheDot.id,
          orderNumber: onTheDot.orderNumber,
          total: onTheDot.total,
          stripePaymentIntentId: null,
          paymentAttempts: 2,
          paymentStartedAt: at(10),
        },
      ]);
      expect(await repo().findPaymentsStartedBy(at(10), 1, found[0])).toEqual([found[1]!]);
      expect(await repo().findPaymentsStartedBy(at(10), 2, found[1])).toEqual([found[2]!]);
    });

    test("claimIntentStopsDue: orders whose intent is due to be cancelled by then, longest due first, each due again at the lease's end; one marked stopped is due no more", async () => {
      const { user, products } = await aShopper();
      const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 14, 0, seconds));
      const paidElsewhere = async (dueAt: Date | null, intent: string | null = `pi_${cuid2Ids.next()}`) => {
        const order = await stored(user, products, { status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square", stripePaymentIntentId: intent });
        if (dueAt) await target().uow.write((db) => db.orders.markIntentStopDue(order.id, dueAt));
        return order;
      };
      const claim = (now: number, until: number, limit = 10) => target().uow.write((db) => db.orders.claimIntentStopsDue(at(now), at(until), limit));
      const named = (...orders: Order[]) => orders.map((o) => ({ id: o.id, orderNumber: o.orderNumber, stripePaymentIntentId: o.stripePaymentIntentId! }));
      const later = await paidElsewhere(at(5));
      const first = await paidElsewhere(at(1));
      await paidElsewhere(null);
      await paidElsewhere(at(2), null);
      const notYet = await paidElsewhere(at(11));

      expect(await claim(10, 130)).toEqual(named(first, later));
      expect(await claim(10, 130)).toEqual([]);
      expect(await claim(20, 140, 1)).toEqual(named(notYet));
      await target().uow.write((db) => db.orders.markIntentStopDue(first.id, null));
      expect(await claim(130, 200)).toEqual(named(later));
      expect(await claim(140, 200)).toEqual(named(notYet));
      // Nothing else of the order changed.
      const { status, paymentStatus, stripePaymentIntentId, updatedAt } = first;
      expect(await repo().findById(first.id)).toMatchObject({ status, paymentStatus, stripePaymentIntentId, updatedAt });
    });
  });
}
