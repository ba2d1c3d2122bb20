import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { RefundRecord } from "../../src/domain/refund.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { anOrderOf, recordSale } from "../support/sales-history.ts";
import type { ContractTarget } from "./targets.ts";

const at = (iso: string) => new Date(iso);
// Three days in New York, the clocks going forward on the second: [7th, 8th) [8th, 9th) [9th, 10th).
const BOUNDS = ["2026-03-07T05:00:00Z", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z", "2026-03-10T04:00:00Z"].map(at);

export function salesContract(target: () => ContractTarget) {
  describe("SalesRepository", () => {
    const repos = () => target().repos;

    async function aShop() {
      const ada = aUser();
      const chipotle = aProduct({ name: "Chipotle", price: 1000 });
      const verde = aProduct({ name: "Verde", price: 500 });
      await repos().users.create(ada);
      await repos().products.create(chipotle);
      await repos().products.create(verde);
      return { ada, chipotle, verde };
    }

    test("an order's paid and refunded times are written by update and read back", async () => {
      const { ada, chipotle } = await aShop();
      const order = anOrderOf(ada.id, [[chipotle, 1]], 60, at("2026-03-07T12:00:00Z"));
      await recordSale(repos(), order, at("2026-03-07T12:01:00.123Z"), at("2026-03-09T08:00:00Z"));
      expect(await repos().orders.findById(order.id)).toMatchObject({ paidAt: at("2026-03-07T12:01:00.123Z"), refundedAt: at("2026-03-09T08:00:00Z") });
      expect((await target().uow.transaction((tx) => tx.orders.lock(order.id)))?.paidAt).toEqual(at("2026-03-07T12:01:00.123Z"));
    });

    test("bounds at the calendar's ends are read as any others: 1 BC (the year 1 begun east of UTC) and the year 10000 (the end of 9999-12-31)", async () => {
      const { ada, chipotle } = await aShop();
      await recordSale(repos(), anOrderOf(ada.id, [[chipotle, 1]], 60, at("2026-03-07T12:00:00Z")), at("2026-03-07T12:01:00Z"), null);
      const bounds = [new Date(Date.UTC(0, 11, 31, 15)), at("2026-03-07T00:00:00Z"), at("2026-03-08T00:00:00Z"), new Date(Date.UTC(10000, 0, 1))];
      bounds[0]!.setUTCFullYear(0);
      expect(await repos().sales.salesIn(bounds, 10)).toMatchObject({ sold: [{ period: 1, orders: 1, units: 1 }], refunded: [] });
      // Settled (all but the last), kept, and read back: the same.
      for (let time = 0; time < 2; time++) {
        expect(await repos().sales.salesIn(bounds, 10, at("2026-04-01T00:00:00Z"))).toMatchObject({ sold: [{ period: 1, orders: 1, units: 1 }], refunded: [] });
      }
    });

    test("sums orders by the period they were paid in and refunds by the one they were made in; a bound starts its period", async () => {
      const { ada, chipotle, verde } = await aShop();
      const sale = (lines: Parameters<typeof anOrderOf>[1], tax: number, paid: string | null, refunded: string | null = null) =>
        recordSale(repos(), anOrderOf(ada.id, lines, tax, at("2026-03-01T00:00:00Z")), paid ? at(paid) : null, refunded ? at(refunded) : null);
      await sale([[chipotle, 2]], 100, "2026-03-07T05:00:00Z");
      await sale([[verde, 3]], 50, "2026-03-08T04:59:59.999Z");
      await sale([[chipotle, 1]], 60, "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z");
      // Paid before the range, refunded within it: the refund counts.
      await sale([[verde, 1]], 30, "2026-03-07T04:59:59.999Z", "2026-03-08T12:00:00Z");
      // Paid as the range ends: outside it.
      await sale([[chipotle, 5]], 300, "2026-03-10T04:00:00Z");
      // Paid after it ended and sent straight back: never a sale, so its refund is none either.
      await sale([[chipotle, 1]], 60, null, "2026-03-08T13:00:00Z");
      await sale([[chipotle, 9]], 60, null);

      expect(await repos().sales.salesIn(BOUNDS, 10)).toEqual({
        sold: [
          { period: 0, orders: 2, units: 5, subtotal: 3500, discount: 0, shipping: 1398, tax: 150 },
          { period: 1, orders: 1, units: 1, subtotal: 1000, discount: 0, shipping: 699, tax: 60 },
        ],
        refunded: [
          { period: 1, subtotal: 500, discount: 0, shipping: 699, tax: 30 },
          { period: 2, subtotal: 1000, discount: 0, shipping: 699, tax: 60 },
        ],
        // Three units each: the revenue decides.
        topProducts: [
          { productId: chipotle.id, name: "Chipotle", sku: chipotle.sku, units: 3, revenue: 3000 },
          { productId: verde.id, name: "Verde", sku: verde.sku, units: 3, revenue: 1500 },
        ],
      });
    });

    test("top products: as many as asked, named as the product is now; nothing sold is nothing", async () => {
      const { ada, chipotle, verde } = await aShop();
      expect(await repos().sales.salesIn(BOUNDS, 10)).toEqual({ sold: [], refunded: [], topProducts: [] });
      await recordSale(
        repos(),
        anOrderOf(
          ada.id,
          [
            [chipotle, 1],
            [verde, 4],
          ],
          0,
          at("2026-03-08T10:00:00Z"),
        ),
        at("2026-03-08T10:00:00Z"),
      );
      await repos().products.update(verde.id, { name: "Salsa Verde", updatedAt: at("2026-03-09T00:00:00Z") });
      expect((await repos().sales.salesIn(BOUNDS, 1)).topProducts).toEqual([
        { productId: verde.id, name: "Salsa Verde", sku: verde.sku, units: 4, revenue: 2000 },
      ]);
    });

    describe("settled periods (their figures may be kept and read again)", () => {
      // The first two days have settled (they ended before SETTLED); the third has not.
      const SETTLED = at("2026-03-09T06:00:00Z");

      async function aWeekend() {
        const { ada, chipotle, verde } = await aShop();
        const sale = (lines: Parameters<typeof anOrderOf>[1], tax: number, paid: string, refunded: string | null = null) =>
          recordSale(repos(), anOrderOf(ada.id, lines, tax, at("2026-03-01T00:00:00Z")), at(paid), refunded ? at(refunded) : null);
        await sale([[chipotle, 2]], 100, "2026-03-07T12:00:00Z");
        await sale([[verde, 3]], 50, "2026-03-08T12:00:00Z", "2026-03-09T05:00:00Z");
        await sale([[verde, 1]], 30, "2026-03-09T05:00:00Z");
        return { ada, chipotle, verde, sale };
      }

      test("read again, settled periods give the figures their orders give, next to the unsettled one summed anew", async () => {
        await aWeekend();
        const summed = await repos().sales.salesIn(BOUNDS, 10);
        expect(summed.sold.map((s) => s.period)).toEqual([0, 1, 2]);
        expect(summed.refunded.map((r) => r.period)).toEqual([2]);
        expect(await repos().sales.salesIn(BOUNDS, 10, SETTLED)).toEqual(summed);
        expect(await repos().sales.salesIn(BOUNDS, 10, SETTLED)).toEqual(summed);
        // Fewer best sellers from the same periods, and a settled period alone (kept already).
        expect((await repos().sales.salesIn(BOUNDS, 1, SETTLED)).topProducts).toEqual(summed.topProducts.slice(0, 1));
        expect(await repos().sales.salesIn(BOUNDS.slice(1, 3), 10, SETTLED)).toEqual(await repos().sales.salesIn(BOUNDS.slice(1, 3), 10));
      });

      test("a day the zone skipped whole (a period of no instant, as Samoa's 2011-12-30) is read as empty, settled or not", async () => {
        await aWeekend();
        const skipping = [BOUNDS[0]!, BOUNDS[1]!, BOUNDS[1]!, BOUNDS[2]!];
        const summed = await repos().sales.salesIn(skipping, 10);
        expect(summed.sold.map((s) => s.period)).toEqual([0, 2]);
        for (let time = 0; time < 2; time++) expect(await repos().sales.salesIn(skipping, 10, SETTLED)).toEqual(summed);
      });

      test("a sale and a refund in the period not yet settled count in the next report, and its best sellers add up across both kinds", async () => {
        const { chipotle, verde, sale } = await aWeekend();
        await repos().sales.salesIn(BOUNDS, 10, SETTLED);
        await sale([[chipotle, 4]], 0, "2026-03-09T07:00:00Z", "2026-03-09T08:00:00Z");
        const report = await repos().sales.salesIn(BOUNDS, 10, SETTLED);
        expect(report.sold.at(-1)).toEqual({ period: 2, orders: 2, units: 5, subtotal: 4500, discount: 0, shipping: 1398, tax: 30 });
        expect(report.refunded.at(-1)).toMatchObject({ period: 2, subtotal: 1500 + 4000 });
        expect(report.topProducts.map((p) => [p.productId, p.units])).toEqual([
          [chipotle.id, 6],
          [verde.id, 4],
        ]);
        expect(report).toEqual(await repos().sales.salesIn(BOUNDS, 10));
      });

      test("a history written afterwards with times in settled periods counts in the next report: what was kept of them is forgotten", async () => {
        const { ada, chipotle } = await aWeekend();
        const before = await repos().sales.salesIn(BOUNDS, 10, SETTLED);
        const late = { ...anOrderOf(ada.id, [[chipotle, 10]], 0, at("2026-03-07T10:00:00Z")), status: "DELIVERED" as const, paymentStatus: "PAID" as const };
        await target().uow.transaction((tx) =>
          tx.sales.importHistory({ customers: [], orders: [{ ...late, paidAt: at("2026-03-07T10:05:00Z") }], refunds: [] }),
        );
        const after = await repos().sales.salesIn(BOUNDS, 10, SETTLED);
        expect(after.sold[0]).toEqual({ ...before.sold[0]!, orders: 2, units: 12, subtotal: 12000, shipping: 699 });
        expect(after.topProducts[0]).toMatchObject({ productId: chipotle.id, units: 12 });
        expect(after).toEqual(await repos().sales.salesIn(BOUNDS, 10));
      });
    });

    test("a history batch lands whole: customers, orders with their items and times, refunds; what is taken is left out, with its items and refunds", async () => {
      const { ada, chipotle } = await aShop();
      const bea = aUser({ passwordHash: null });
      const paid = { ...anOrderOf(bea.id, [[chipotle, 2]], 100, at("2026-03-08T10:00:00Z")), status: "DELIVERED" as const, paymentStatus: "PAID" as const };
      const sold = { ...paid, paidAt: at("2026-03-08T10:01:00Z"), trackingNumber: "1Z-1", paidVia: "stripe", stripePaymentIntentId: "pi_demo_1" };
      const refundedOrder = {
        ...anOrderOf(bea.id, [[chipotle, 1]], 60, at("2026-03-08T11:00:00Z")),
        status: "REFUNDED" as const,
        paymentStatus: "REFUNDED" as const,
        paidAt: at("2026-03-08T11:01:00Z"),
        refundedAt: at("2026-03-09T09:00:00Z"),
      };
      const refund: RefundRecord = {
        id: cuid2Ids.next(),
        orderId: refundedOrder.id,
        intentId: "pi_demo_2",
        idempotencyKey: `refund-${refundedOrder.id}`,
        reason: "order_ended",
        amount: refundedOrder.total,
        requestedAt: at("2026-03-09T09:00:00Z"),
        attempts: 1,
        nextAttemptAt: at("2026-03-09T09:02:00Z"),
        lastError: null,
        confirmedAt: at("2026-03-09T09:00:00Z"),
        processorRefundId: "re_demo_2",
      };
      const write = (batch: Parameters<ContractTarget["repos"]["sales"]["importHistory"]>[0]) =>
        target().uow.transaction((tx) => tx.sales.importHistory(batch));
      const adaAgain = { ...ada, id: cuid2Ids.next() };
      expect(await write({ customers: [bea, adaAgain], orders: [sold, refundedOrder], refunds: [refund] })).toBe(2);
      expect(await repos().users.findById(bea.id)).toEqual(bea);
      expect(await repos().users.findById(adaAgain.id)).toBeNull();
      expect(await repos().orders.findById(sold.id)).toMatchObject({ ...sold, items: sold.items.map((item) => expect.objectContaining(item)) });
      expect(await repos().orders.findById(refundedOrder.id)).toMatchObject({ paidAt: refundedOrder.paidAt, refundedAt: refundedOrder.refundedAt });
      expect(await repos().refunds.listOfOrder(refundedOrder.id)).toEqual([refund]);

      // Its number taken: left out, its refund too; another alongside lands.
      const again = { ...anOrderOf(bea.id, [[chipotle, 1]], 0, at("2026-03-08T12:00:00Z")), orderNumber: sold.orderNumber };
      const other = anOrderOf(bea.id, [[chipotle, 1]], 0, at("2026-03-08T12:00:00Z"));
      const orphan = { ...refund, id: cuid2Ids.next(), orderId: again.id, idempotencyKey: `refund-${again.id}` };
      expect(await write({ customers: [], orders: [again, other], refunds: [orphan] })).toBe(1);
      expect(await repos().orders.findById(again.id)).toBeNull();
      expect(await repos().refunds.listOfOrder(again.id)).toEqual([]);
      expect((await repos().orders.findById(other.id))?.items).toHaveLength(1);
      expect((await repos().sales.salesIn(BOUNDS, 10)).sold).toEqual([
        { period: 1, orders: 2, units: 3, subtotal: 3000, discount: 0, shipping: 1398, tax: 160 },
      ]);
    });
  });
}
