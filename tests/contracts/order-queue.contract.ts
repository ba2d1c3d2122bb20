import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { Address } from "../../src/domain/address.ts";
import { type Order, newOrder } from "../../src/domain/order.ts";
import type { Product } from "../../src/domain/product.ts";
import type { User } from "../../src/domain/user.ts";
import type { ExportedLine, OrderQueueFilter } from "../../src/application/ports/orders.ts";
import { aProduct, aUser, orderedLinesOf } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const address: Address = { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" };
const at = (day: number, seconds = 0) => new Date(Date.UTC(2026, 9, day, 12, 0, seconds));

/** The back office's queue and export (decisions §12): every filter alone and together, pages, and keyset batches. */
export function orderQueueContract(target: () => ContractTarget) {
  describe("OrderRepository: the back office's queue and export", () => {
    const repo = () => target().repos.orders;
    let sequence = 0;

    async function aCustomer(fields: Partial<User> = {}): Promise<User> {
      const user = aUser(fields);
      await target().repos.users.create(user);
      return user;
    }

    async function someProducts(count: number): Promise<Product[]> {
      const products = Array.from({ length: count }, () => aProduct());
      for (const p of products) await target().repos.products.create(p);
      return products;
    }

    async function anOrder(customer: User, products: Product[], overrides: Partial<Order> & { createdAt: Date }): Promise<Order> {
      const order = {
        ...newOrder({
          id: cuid2Ids.next(),
          orderNumber: `SF-20261001-Q${String(++sequence).padStart(3, "0")}`,
          userId: customer.id,
          itemIds: products.map(() => cuid2Ids.next()),
          lines: orderedLinesOf(products),
          shippingAddress: address,
          billingAddress: address,
          tax: 50,
          notes: null,
          at: overrides.createdAt,
        }),
        ...overrides,
      };
      expect(await repo().create(order)).toBe(true);
      return order;
    }

    /** Five orders of three customers over five days, in various states. */
    async function aShop() {
      const [ana, bob, cleo] = [
        await aCustomer({ email: "ana.lopez@example.com", name: "Ana López" }),
        await aCustomer({ email: "bob@shop.test", name: "Bob Stone" }),
        await aCustomer({ email: "cleo@example.org", name: null }),
      ];
      const products = await someProducts(2);
      const orders = {
        anaPending: await anOrder(ana, products, { createdAt: at(1), orderNumber: "SF-20261001-A7K2" }),
        bobPaid: await anOrder(bob, products, { createdAt: at(2), orderNumber: "SF-20261002-C3P0", status: "CONFIRMED", paymentStatus: "PAID" }),
        anaShipped: await anOrder(ana, products, { createdAt: at(3), orderNumber: "SF-20261003-R2D2", status: "SHIPPED", paymentStatus: "PAID" }),
        cleoFailed: await anOrder(cleo, products, { createdAt: at(4), orderNumber: "SF-20261004-BOBC", paymentStatus: "FAILED" }),
        bobRefunded: await anOrder(bob, products, { createdAt: at(5), orderNumber: "SF-20261005-BOB1", status: "REFUNDED", paymentStatus: "REFUNDED" }),
      };
      // A new order has no tracking number: it is set by the move to SHIPPED.
      await repo().update(orders.anaShipped.id, { trackingNumber: "1Z1", updatedAt: at(3, 30) });
      orders.anaShipped = { ...orders.anaShipped, trackingNumber: "1Z1", updatedAt: at(3, 30) };
      return { customers: { ana, bob, cleo }, products, orders };
    }

    const numbers = async (filter: OrderQueueFilter, page = { page: 1, limit: 20 }) => {
      const result = await repo().queue(filter, page);
      return { total: result.total, numbers: result.items.map((o) => o.orderNumber) };
    };
    const numbersOf = (...orders: Order[]) => orders.map((o) => o.orderNumber);

    test("with no filter: every customer's orders, newest first, each whole with its customer, and how many in all", async () => {
      const { customers, orders } = await aShop();
      const { items, total } = await repo().queue({}, { page: 1, limit: 2 });
      expect(total).toBe(5);
      expect(items.map((o) => o.id)).toEqual([orders.bobRefunded.id, orders.cleoFailed.id]);
      expect(items[1]).toEqual({
        ...(await repo().findById(orders.cleoFailed.id))!,
        customer: { id: customers.cleo.id, email: "cleo@example.org", name: null },
      });
      expect(await numbers({}, { page: 3, limit: 2 })).toEqual({ total: 5, numbers: numbersOf(orders.anaPending) });
      expect(await numbers({}, { page: 4, limit: 2 })).toEqual({ total: 5, numbers: [] });
    });

    test("each filter alone: statuses, payment statuses (one or several), customer, from (inclusive), to (exclusive)", async () => {
      const { customers, orders: o } = await aShop();
      expect(await numbers({ statuses: ["PENDING"] })).toEqual({ total: 2, numbers: numbersOf(o.cleoFailed, o.anaPending) });
      expect(await numbers({ statuses: ["SHIPPED", "REFUNDED"] })).toEqual({ total: 2, numbers: numbersOf(o.bobRefunded, o.anaShipped) });
      expect(await numbers({ paymentStatuses: ["PAID"] })).toEqual({ total: 2, numbers: numbersOf(o.anaShipped, o.bobPaid) });
      expect(await numbers({ paymentStatuses: ["FAILED", "PENDING"] })).toEqual({ total: 2, numbers: numbersOf(o.cleoFailed, o.anaPending) });
      expect(await numbers({ customerId: customers.bob.id })).toEqual({ total: 2, numbers: numbersOf(o.bobRefunded, o.bobPaid) });
      expect(await numbers({ customerId: cuid2Ids.next() })).toEqual({ total: 0, numbers: [] });
      expect(await numbers({ from: at(4) })).toEqual({ total: 2, numbers: numbersOf(o.bobRefunded, o.cleoFailed) });
      expect(await numbers({ to: at(2) })).toEqual({ total: 1, numbers: numbersOf(o.anaPending) });
      expect(await numbers({ from: at(2), to: at(4) })).toEqual({ total: 2, numbers: numbersOf(o.anaShipped, o.bobPaid) });
    });

    test("q: part of the order number, or of the customer's e-mail or name, in any case; % and _ are plain characters", async () => {
      const { orders: o } = await aShop();
      expect(await numbers({ q: "bob1" })).toEqual({ total: 1, numbers: numbersOf(o.bobRefunded) });
      expect(await numbers({ q: "03-r2" })).toEqual({ total: 1, numbers: numbersOf(o.anaShipped) });
      expect(await numbers({ q: "SHOP.TEST" })).toEqual({ total: 2, numbers: numbersOf(o.bobRefunded, o.bobPaid) });
      expect(await numbers({ q: "ana lóp" })).toEqual({ total: 2, numbers: numbersOf(o.anaShipped, o.anaPending) });
      expect(await numbers({ q: "example" })).toEqual({ total: 3, numbers: numbersOf(o.cleoFailed, o.anaShipped, o.anaPending) });
      expect(await numbers({ q: "%" })).toEqual({ total: 0, numbers: [] });
      expect(await numbers({ q: "bob_" })).toEqual({ total: 0, numbers: [] });
    });

    test("q pages through orders matched by number and by customer together, newest first", async () => {
      const { orders: o } = await aShop();
      // BOB: Bob's two orders by customer, Cleo's and one of Bob's by number.
      const bob = [o.bobRefunded, o.cleoFailed, o.bobPaid];
      for (const [i, order] of bob.entries()) expect(await numbers({ q: "bob" }, { page: i + 1, limit: 1 })).toEqual({ total: 3, numbers: numbersOf(order) });
      expect(await numbers({ q: "bob" }, { page: 2, limit: 2 })).toEqual({ total: 3, numbers: numbersOf(o.bobPaid) });
      expect(await numbers({ q: "bob" }, { page: 3, limit: 2 })).toEqual({ total: 3, numbers: [] });
    });

    test("filters together: every one must hold", async () => {
      const { customers, orders: o } = await aShop();
      expect(await numbers({ statuses: ["PENDING", "SHIPPED"], paymentStatuses: ["PENDING", "PAID"] })).toEqual({
        total: 2,
        numbers: numbersOf(o.anaShipped, o.anaPending),
      });
      expect(await numbers({ q: "example", statuses: ["PENDING"], from: at(2) })).toEqual({ total: 1, numbers: numbersOf(o.cleoFailed) });
      expect(await numbers({ customerId: customers.ana.id, paymentStatuses: ["PAID"], from: at(1), to: at(4), q: "LÓPEZ" })).toEqual({
        total: 1,
        numbers: numbersOf(o.anaShipped),
      });
      expect(await numbers({ customerId: customers.ana.id, q: "bob" })).toEqual({ total: 0, numbers: [] });
    });

    /** Every line of every batch, with the batches' sizes. */
    async function exported(filter: OrderQueueFilter, batchSize: number) {
      const sizes: number[] = [];
      const lines: ExportedLine[] = [];
      for await (const batch of repo().exportLines(filter, batchSize)) {
        sizes.push(batch.length);
        lines.push(...batch);
      }
      return { sizes, lines };
    }

    test("export: one entry per line, newest order first and each order's lines in their order, with the order and its customer", async () => {
      const { customers, orders: o } = await aShop();
      const { lines } = await exported({}, 1000);
      expect(lines.map((l) => [l.order.orderNumber, l.item.productName])).toEqual(
        [o.bobRefunded, o.cleoFailed, o.anaShipped, o.bobPaid, o.anaPending].flatMap((order) => order.items.map((i) => [order.orderNumber, i.productName])),
      );
      expect(lines[4]).toEqual({
        order: {
          id: o.anaShipped.id,
          orderNumber: o.anaShipped.orderNumber,
          status: "SHIPPED",
          paymentStatus: "PAID",
          subtotal: o.anaShipped.subtotal,
          shippingCost: o.anaShipped.shippingCost,
          tax: 50,
          discountAmount: 0,
          total: o.anaShipped.total,
          shippingAddress: address,
          trackingNumber: "1Z1",
          createdAt: at(3),
          updatedAt: at(3, 30),
        },
        customer: { id: customers.ana.id, email: "ana.lopez@example.com", name: "Ana López" },
        item: o.anaShipped.items[0]!,
      });
    });

    test("export: batches of at most the size asked, cut inside an order too, with nothing lost or repeated; the queue's filters apply", async () => {
      const { customers, orders: o } = await aShop();
      const all = (await exported({}, 1000)).lines;
      const inThrees = await exported({}, 3);
      expect(inThrees.sizes).toEqual([3, 3, 3, 1]);
      expect(inThrees.lines).toEqual(all);
      expect((await exported({}, 1)).lines).toEqual(all);
      const filtered = await exported({ statuses: ["PENDING"], q: "EXAMPLE", customerId: customers.ana.id, to: at(3) }, 1);
      expect(filtered.lines.map((l) => l.item.id)).toEqual(o.anaPending.items.map((i) => i.id));
      expect((await exported({ paymentStatuses: ["REFUNDED"], from: at(5) }, 1000)).lines.map((l) => l.order.id)).toEqual([o.bobRefunded.id, o.bobRefunded.id]);
      expect(await exported({ q: "nobody" }, 10)).toEqual({ sizes: [], lines: [] });
    });

    test("export: orders made in the same instant are told apart by id, in batches of one line", async () => {
      const customer = await aCustomer();
      const products = await someProducts(2);
      const twins = [await anOrder(customer, products, { createdAt: at(9) }), await anOrder(customer, products, { createdAt: at(9) })];
      const { lines } = await exported({}, 1);
      const newestFirst = twins.sort((a, b) => (a.id < b.id ? 1 : -1));
      expect(lines.map((l) => l.item.id)).toEqual(newestFirst.flatMap((order) => order.items.map((i) => i.id)));
      expect((await numbers({})).numbers).toEqual(numbersOf(...newestFirst));
    });
  });
}
