import { describe, expect, test } from "bun:test";
import { getSalesReport } from "../../src/application/admin/sales-report.ts";
import { demoOrders } from "../../src/application/catalog/demo-orders.ts";
import { seedDemoOrders } from "../../src/application/catalog/seed-demo-orders.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import type { Order } from "../../src/domain/order.ts";
import { SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import { priceOrder } from "../../src/domain/pricing.ts";
import { aProduct } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { uowWith } from "../support/faults.ts";

const NOW = new Date("2026-11-22T12:00:00Z");
const DAY = 86_400_000;
const products = Array.from({ length: 12 }, (_, i) => aProduct({ price: 499 + i * 100 }));
const spec = (seed: number, orders = 5_000) => ({ orders, seed, now: NOW, numberPrefix: "SF", products });
const share = (part: number, whole: number) => part / whole;

describe("the demo order history (db:seed --orders)", () => {
  test("the same seed and moment give the same history; another seed another", () => {
    const first = demoOrders(spec(7, 300));
    const again = demoOrders(spec(7, 300));
    const other = demoOrders(spec(8, 300));
    for (const size of [120, 180]) {
      const batch = first.next(size);
      expect(batch.orders).toHaveLength(size);
      expect(again.next(size)).toEqual(batch);
      expect(other.next(size).orders.map((o) => o.id)).not.toEqual(batch.orders.map((o) => o.id));
    }
  });

  test("5,000 orders look like a year of trade: in sensible proportions, priced by the shop's rules, times in order", () => {
    const history = demoOrders(spec(42)).next(5_000);
    const { orders, refunds, customers } = history;
    const paid = orders.filter((o) => o.paidAt !== null);
    const refunded = orders.filter((o) => o.paymentStatus === "REFUNDED");
    // Never paid: about 6 %, all ended as expired.
    expect(share(orders.length - paid.length, orders.length)).toBeWithin(0.04, 0.08);
    expect(orders.filter((o) => o.paidAt === null).every((o) => o.status === "CANCELLED" && o.refundedAt === null)).toBe(true);
    // Refunded: about 4 % of those paid, each with its refund, made in full, when the order says.
    expect(share(refunded.length, paid.length)).toBeWithin(0.025, 0.06);
    expect(refunds.map((r) => r.orderId).sort()).toEqual(refunded.map((o) => o.id).sort());
    const byId = new Map(orders.map((o) => [o.id, o]));
    expect(refunds.every((r) => r.amount === byId.get(r.orderId)!.total && r.confirmedAt?.getTime() === byId.get(r.orderId)!.refundedAt?.getTime())).toBe(true);
    // Several lines an order, customers who come back.
    const lines = orders.reduce((sum, o) => sum + o.items.length, 0);
    expect(lines / orders.length).toBeWithin(1.8, 2.8);
    expect(customers.length).toBeWithin(900, 1_250);
    expect(new Set(orders.map((o) => o.userId)).size).toBe(customers.length);
    // Priced by the shop's rules; every number unique and dated by its day.
    expect(orders.every((o) => priceOrder(o.items, o.shippingAddress, o.tax).total === o.total)).toBe(true);
    expect(new Set(orders.map((o) => o.orderNumber)).size).toBe(orders.length);
    expect(orders.every((o) => o.orderNumber.slice(3, 11) === o.createdAt.toISOString().slice(0, 10).replaceAll("-", ""))).toBe(true);
    // Within the last year, oldest first, paid within ten minutes, refunded after that and before now.
    expect(orders.every((o) => o.createdAt.getTime() > NOW.getTime() - 365 * DAY && o.createdAt <= NOW)).toBe(true);
    expect(orders.every((o, i) => i === 0 || o.createdAt >= orders[i - 1]!.createdAt)).toBe(true);
    const minutesToPay = (o: Order) => (o.paidAt!.getTime() - o.createdAt.getTime()) / 60_000;
    expect(paid.every((o) => minutesToPay(o) >= 0 && minutesToPay(o) <= 10)).toBe(true);
    expect(refunded.every((o) => o.refundedAt! > o.paidAt! && o.refundedAt! <= NOW)).toBe(true);
    // On its way by age: what was paid over six days ago has arrived, unless refunded.
    const old = paid.filter((o) => NOW.getTime() - o.paidAt!.getTime() > 6 * DAY && o.paymentStatus === "PAID");
    expect(old.every((o) => o.status === "DELIVERED" && o.trackingNumber !== null)).toBe(true);
    expect(paid.some((o) => o.status === "CONFIRMED") && paid.some((o) => o.status === "SHIPPED")).toBe(true);
  });
});

describe("seedDemoOrders", () => {
  async function aShop() {
    const deps = createMemoryDeps({ random: { below: () => 1234 } });
    deps.clock.set(NOW);
    for (const product of products) await deps.repos.products.create(product);
    return deps;
  }

  test("writes N orders over what is on sale, leaves stock alone, and a report over them adds up", async () => {
    const deps = await aShop();
    expect(await seedDemoOrders(deps, { numberPrefix: "SF" }, { orders: 4_321 })).toEqual({ orders: 4_321, seed: 1234, found: 0 });
    expect(deps.state.orders.size).toBe(4_321);
    expect([...deps.state.products.values()].map((p) => p.inventory)).toEqual(products.map((p) => p.inventory));
    const report = await getSalesReport(deps, { timeZone: "America/Chicago" }, SYSTEM_ACTOR, { from: "2025-11-22", to: "2026-11-22", interval: "week" });
    const paid = [...deps.state.orders.values()].filter((o) => o.paidAt !== null);
    expect(report.totals.orders).toBe(paid.length);
    expect(report.totals.grossSales).toBe(paid.reduce((sum, o) => sum + o.subtotal, 0));
    for (const field of ["orders", "units", "grossSales", "refunds", "netSales", "shipping", "tax"] as const) {
      expect({ field, sum: report.series.reduce((sum, p) => sum + p[field], 0) }).toEqual({ field, sum: report.totals[field] });
    }
  });

  test("the same seed twice: its orders are there already, and nothing more is written", async () => {
    const deps = await aShop();
    await seedDemoOrders(deps, { numberPrefix: "SF" }, { orders: 50, seed: 9 });
    expect(await domainErrorOf(seedDemoOrders(deps, { numberPrefix: "SF" }, { orders: 50, seed: 9 }))).toMatchObject({
      code: "invalid_input",
      message: "The demo orders of seed 9 are there already: give another --seed",
    });
    expect(deps.state.orders.size).toBe(50);
  });

  test("a run stopped midway (killed after its first batch): the same seed again adds the rest, then is all there (found by an attack)", async () => {
    const deps = await aShop();
    let imports = 0;
    const dying = uowWith(deps, (tx) => ({
      sales: {
        ...tx.sales,
        importHistory: (batch: Parameters<typeof tx.sales.importHistory>[0]) =>
          ++imports === 2 ? Promise.reject(new Error("killed")) : tx.sales.importHistory(batch),
      },
    }));
    expect(await seedDemoOrders({ ...deps, uow: dying }, { numberPrefix: "SF" }, { orders: 4_321, seed: 9 }).catch((e: Error) => e.message)).toBe("killed");
    expect(deps.state.orders.size).toBe(2_000);
    // Run again two hours later: times are counted back from a later now (some of the first batch's
    // orders now fall on another day, with another number), but the seed's orders keep their ids.
    deps.clock.advance(2 * 3_600_000);
    expect(await seedDemoOrders(deps, { numberPrefix: "SF" }, { orders: 4_321, seed: 9 })).toEqual({ orders: 2_321, seed: 9, found: 2_000 });
    expect(deps.state.orders.size).toBe(4_321);
    deps.clock.advance(2 * 3_600_000);
    expect((await domainErrorOf(seedDemoOrders(deps, { numberPrefix: "SF" }, { orders: 4_321, seed: 9 }))).message).toBe(
      "The demo orders of seed 9 are there already: give another --seed",
    );
    expect(deps.state.orders.size).toBe(4_321);
  });

  test("refused: a count out of range, a seed out of range, nothing on sale", async () => {
    const deps = await aShop();
    for (const [request, path] of [
      [{ orders: 0 }, "orders"],
      [{ orders: 1_000_001 }, "orders"],
      [{ orders: 1.5 }, "orders"],
      [{ orders: 10, seed: 2 ** 32 }, "seed"],
    ] as const) {
      expect((await domainErrorOf(seedDemoOrders(deps, { numberPrefix: "SF" }, request))).details?.issues).toEqual([{ path, message: expect.any(String) }]);
    }
    const empty = createMemoryDeps();
    expect((await domainErrorOf(seedDemoOrders(empty, { numberPrefix: "SF" }, { orders: 10 }))).message).toContain("nothing on sale");
  });
});
