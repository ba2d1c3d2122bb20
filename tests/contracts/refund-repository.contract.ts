import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { NewRefund } from "../../src/application/ports/refunds.ts";
import { newOrder } from "../../src/domain/order.ts";
import { aProduct, aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const start = new Date("2026-11-22T12:00:00Z").getTime();
const at = (seconds: number) => new Date(start + seconds * 1000);

export function refundRepositoryContract(target: () => ContractTarget) {
  describe("RefundRepository", () => {
    const refunds = () => target().repos.refunds;
    const inTransaction = <T>(work: (tx: ContractTarget["repos"]) => Promise<T>) => target().uow.transaction(work);

    /** An order to refund: refunds belong to one. */
    async function anOrderId(): Promise<string> {
      const user = aUser();
      const product = aProduct();
      await target().repos.users.create(user);
      await target().repos.products.create(product);
      const id = cuid2Ids.next();
      const order = newOrder({
        id,
        orderNumber: `SF-20261122-${id.slice(0, 4).toUpperCase()}`,
        userId: user.id,
        itemIds: [cuid2Ids.next()],
        lines: [{ productId: product.id, quantity: 1, product: { name: product.name, sku: product.sku, featuredImage: product.featuredImage, price: 1299 } }],
        shippingAddress: { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" },
        billingAddress: { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" },
        tax: 81,
        notes: null,
        at: at(0),
      });
      expect(await target().repos.orders.create(order)).toBe(true);
      return id;
    }

    const aRefund = (orderId: string, overrides: Partial<NewRefund> = {}): NewRefund => ({
      id: cuid2Ids.next(),
      orderId,
      intentId: "pi_1",
      idempotencyKey: `refund-${orderId}`,
      reason: "order_ended",
      amount: 2079,
      requestedAt: at(0),
      ...overrides,
    });
    const markDue = (refund: NewRefund, attemptUntil = at(120)) => inTransaction((tx) => tx.refunds.markDue(refund, attemptUntil));
    const claimIds = async (now: Date, until = at(1_000), limit = 10) =>
      (await inTransaction((tx) => tx.refunds.claimDue(now, until, limit))).map((r) => r.idempotencyKey);

    test("a refund marked due is recorded whole, its first attempt counted, and listed as due", async () => {
      const orderId = await anOrderId();
      const refund = aRefund(orderId);
      const untried = { attempts: 1, nextAttemptAt: at(120), lastError: null, confirmedAt: null, processorRefundId: null };
      expect(await markDue(refund)).toEqual({ ...refund, ...untried });
      expect(await refunds().listDue()).toEqual([{ ...refund, ...untried }]);
      expect(await refunds().listOfOrder(orderId)).toEqual([{ ...refund, ...untried }]);
      expect(await refunds().listOfOrder("z12345678901234567890123")).toEqual([]);
    });

    test("orderOfIntent: the order a payment was refunded for, by the payment's intent; none for an intent never refunded", async () => {
      const orderId = await anOrderId();
      const intentId = `pi_late_${cuid2Ids.next()}`;
      await markDue(aRefund(orderId, { intentId, idempotencyKey: `late-payment-${intentId}` }));
      expect(await refunds().orderOfIntent(intentId)).toBe(orderId);
      expect(await refunds().orderOfIntent("pi_never_refunded")).toBeNull();
    });

    test("one refund per idempotency key: marking it due again writes nothing", async () => {
      const orderId = await anOrderId();
      await markDue(aRefund(orderId));
      expect(await markDue(aRefund(orderId, { amount: 1 }))).toBeNull();
      expect((await refunds().listDue()).map((r) => r.amount)).toEqual([2079]);
    });

    test("a refund is kept from claims while its attempt has its time, then claimed with the attempt counted", async () => {
      const orderId = await anOrderId();
      await markDue(aRefund(orderId), at(120));
      expect(await claimIds(at(119))).toEqual([]);
      const [claimed] = await inTransaction((tx) => tx.refunds.claimDue(at(120), at(240), 10));
      expect(claimed).toMatchObject({ idempotencyKey: `refund-${orderId}`, attempts: 2, nextAttemptAt: at(240) });
      expect(await claimIds(at(239))).toEqual([]);
      expect(await claimIds(at(240))).toEqual([`refund-${orderId}`]);
    });

    test("claims the oldest due first, up to the limit", async () => {
      const orderId = await anOrderId();
      for (const [key, second] of [
        ["c", 3],
        ["a", 1],
        ["b", 2],
      ] as const)
        await markDue(aRefund(orderId, { idempotencyKey: key, requestedAt: at(second) }), at(second));
      expect(await claimIds(at(10), at(1_000), 2)).toEqual(["a", "b"]);
      expect(await claimIds(at(10), at(1_000), 2)).toEqual(["c"]);
    });

    test("a failed attempt keeps the refund due, with its error, from the retry time", async () => {
      const orderId = await anOrderId();
      const refund = aRefund(orderId);
      await markDue(refund);
      await inTransaction((tx) => tx.refunds.markFailed(refund.id, "Payment processing failed", at(60)));
      expect(await refunds().listDue()).toEqual([expect.objectContaining({ id: refund.id, lastError: "Payment processing failed", nextAttemptAt: at(60) })]);
      expect(await claimIds(at(59))).toEqual([]);
      expect(await claimIds(at(60))).toEqual([refund.idempotencyKey]);
    });

    test("a confirmed refund keeps the processor's id, is no longer due and never claimed; confirming it again changes nothing", async () => {
      const orderId = await anOrderId();
      const refund = aRefund(orderId);
      await markDue(refund);
      await inTransaction((tx) => tx.refunds.markFailed(refund.id, "timeout", at(1)));
      expect(await inTransaction((tx) => tx.refunds.markConfirmed(refund.id, at(5), "re_1"))).toBe(true);
      expect(await inTransaction((tx) => tx.refunds.markConfirmed(refund.id, at(9), "re_2"))).toBe(false);
      expect(await refunds().listDue()).toEqual([]);
      expect(await claimIds(at(10_000), at(20_000))).toEqual([]);
      expect(await refunds().listOfOrder(orderId)).toEqual([
        expect.objectContaining({ id: refund.id, confirmedAt: at(5), processorRefundId: "re_1", lastError: null }),
      ]);
      await inTransaction((tx) => tx.refunds.markFailed(refund.id, "late failure", at(20)));
      expect((await refunds().listOfOrder(orderId))[0]).toMatchObject({ confirmedAt: at(5), lastError: null });
    });

    test("a payment reported refunded in full confirms every refund of it still due, and no other", async () => {
      const orderId = await anOrderId();
      await markDue(aRefund(orderId, { idempotencyKey: "refund-a", intentId: "pi_a" }));
      await markDue(aRefund(orderId, { idempotencyKey: "late-payment-pi_a", intentId: "pi_a", reason: "late_payment" }));
      await markDue(aRefund(orderId, { idempotencyKey: "refund-b", intentId: "pi_b" }));
      expect(await inTransaction((tx) => tx.refunds.confirmAllOf("pi_a", at(7)))).toBe(2);
      expect(await inTransaction((tx) => tx.refunds.confirmAllOf("pi_a", at(8)))).toBe(0);
      expect((await refunds().listDue()).map((r) => r.idempotencyKey)).toEqual(["refund-b"]);
      expect((await refunds().listOfOrder(orderId)).filter((r) => r.intentId === "pi_a").map((r) => [r.confirmedAt, r.processorRefundId])).toEqual([
        [at(7), null],
        [at(7), null],
      ]);
    });

    test("a refund marked due in a transaction that fails is not kept", async () => {
      const orderId = await anOrderId();
      await inTransaction(async (tx) => {
        expect(await tx.refunds.markDue(aRefund(orderId), at(120))).not.toBeNull();
        throw new Error("the move failed");
      }).catch(() => undefined);
      expect(await refunds().listDue()).toEqual([]);
      expect(await markDue(aRefund(orderId))).not.toBeNull();
    });
  });
}
