import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { newOrder } from "../../src/domain/order.ts";
import { aProduct, aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const start = new Date("2026-11-23T10:00:00Z").getTime();
const at = (minutes: number) => new Date(start + minutes * 60_000);
const DAY = 24 * 60;

export function idempotencyKeysContract(target: () => ContractTarget) {
  describe("IdempotencyKeys", () => {
    const keys = () => target().repos.idempotency;
    async function aUserId() {
      const user = aUser();
      await target().repos.users.create(user);
      return user.id;
    }
    /** An order of the user's, for a key to record (the database holds the key to it). */
    async function anOrderOf(userId: string) {
      const product = aProduct();
      await target().repos.products.create(product);
      const order = newOrder({
        id: cuid2Ids.next(),
        orderNumber: `SF-20261123-${cuid2Ids.next().slice(0, 4).toUpperCase()}`,
        userId,
        itemIds: [cuid2Ids.next()],
        lines: [
          { productId: product.id, quantity: 1, product: { name: product.name, sku: product.sku, featuredImage: product.featuredImage, price: product.price } },
        ],
        shippingAddress: { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" },
        billingAddress: { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" },
        tax: 0,
        notes: null,
        at: at(0),
      });
      await target().repos.orders.create(order);
      return order.id;
    }
    const claim = (userId: string, key: string, fingerprint: string, now = 0) =>
      target().uow.transaction((tx) => tx.idempotency.claim({ userId, key, fingerprint, now: at(now), expiresAt: at(now + DAY), staleBefore: at(now - 5) }));
    /** Claims, and keeps the response under the claim. */
    const answered = async (userId: string, key: string, response: { status: number; body: unknown }, now = 0) => {
      const claimed = await claim(userId, key, "A", now);
      if (claimed.kind !== "claimed") throw new Error(`not claimed: ${claimed.kind}`);
      await keys().keep(userId, key, claimed.claimedAt, response);
    };

    test("a new key is claimed; while its request runs the same request is in flight, another is a mismatch", async () => {
      const user = await aUserId();
      expect(await claim(user, "k1", "A")).toEqual({ kind: "claimed", claimedAt: expect.any(Date) });
      expect(await claim(user, "k1", "A", 1)).toEqual({ kind: "in_flight" });
      expect(await claim(user, "k1", "B", 1)).toEqual({ kind: "mismatch" });
    });

    test("a kept response is replayed whole to the same request for a day, and then the key is free again", async () => {
      const user = await aUserId();
      const response = { status: 402, body: { error: "Your card was declined.", details: { code: "card_declined", declineCode: null } } };
      await answered(user, "k1", response);
      expect(await claim(user, "k1", "A", 60)).toEqual({ kind: "replay", response });
      expect(await claim(user, "k1", "B", 60)).toEqual({ kind: "mismatch" });
      expect(await claim(user, "k1", "B", DAY)).toEqual({ kind: "claimed", claimedAt: expect.any(Date) });
    });

    test("keys are each user's own", async () => {
      const [ada, bob] = [await aUserId(), await aUserId()];
      expect(await claim(ada, "shared", "A")).toEqual({ kind: "claimed", claimedAt: expect.any(Date) });
      expect(await claim(bob, "shared", "B")).toEqual({ kind: "claimed", claimedAt: expect.any(Date) });
    });

    test("a released key (its request failed and changed nothing) is free at once; a kept one is not released", async () => {
      const user = await aUserId();
      await claim(user, "k1", "A");
      await keys().release(user, "k1", at(0));
      const second = await claim(user, "k1", "B");
      expect(second).toEqual({ kind: "claimed", claimedAt: at(0) });
      await keys().keep(user, "k1", at(0), { status: 200, body: { ok: true } });
      await keys().release(user, "k1", at(0));
      expect(await claim(user, "k1", "B", 1)).toEqual({ kind: "replay", response: { status: 200, body: { ok: true } } });
    });

    test("a claim whose request never finished may be taken over once it is stale; the first request, finishing late, then changes nothing", async () => {
      const user = await aUserId();
      await claim(user, "k1", "A");
      expect(await claim(user, "k1", "A", 4)).toEqual({ kind: "in_flight" });
      expect(await claim(user, "k1", "A", 6)).toEqual({ kind: "claimed", claimedAt: at(6) });
      await keys().keep(user, "k1", at(0), { status: 200, body: { late: true } });
      await keys().release(user, "k1", at(0));
      expect(await claim(user, "k1", "A", 7)).toEqual({ kind: "in_flight" });
      await keys().keep(user, "k1", at(6), { status: 200, body: { mine: true } });
      expect(await claim(user, "k1", "A", 8)).toEqual({ kind: "replay", response: { status: 200, body: { mine: true } } });
    });

    test("purgeExpired deletes the keys past their day and says how many", async () => {
      const user = await aUserId();
      await claim(user, "old", "A");
      await answered(user, "new", { status: 200, body: {} }, 60);
      expect(await keys().purgeExpired(at(DAY + 1), 100)).toBe(1);
      expect(await claim(user, "new", "B", DAY + 1)).toEqual({ kind: "mismatch" });
    });

    test("purgeExpired deletes at most as many keys as it is asked to, the next call the rest", async () => {
      const user = await aUserId();
      for (const key of ["a", "b", "c"]) await claim(user, key, "A");
      expect(await keys().purgeExpired(at(DAY + 1), 2)).toBe(2);
      expect(await keys().purgeExpired(at(DAY + 1), 2)).toBe(1);
      expect(await keys().purgeExpired(at(DAY + 1), 2)).toBe(0);
    });

    test("a claim that made an order answers it (decisions §15), however old the claim: the same request resumes under the first claim, another is a mismatch", async () => {
      const user = await aUserId();
      const orderId = await anOrderOf(user);
      await claim(user, "k1", "A");
      await keys().recordOrder(user, "k1", at(0), orderId);
      expect(await claim(user, "k1", "A", 1)).toEqual({ kind: "order_made", claimedAt: at(0), orderId });
      expect(await claim(user, "k1", "A", 60)).toEqual({ kind: "order_made", claimedAt: at(0), orderId });
      expect(await claim(user, "k1", "B", 60)).toEqual({ kind: "mismatch" });
      await keys().keep(user, "k1", at(0), { status: 200, body: { orderId } });
      expect(await claim(user, "k1", "A", 61)).toEqual({ kind: "replay", response: { status: 200, body: { orderId } } });
      expect(await claim(user, "k1", "B", DAY)).toEqual({ kind: "claimed", claimedAt: at(DAY) });
    });

    test("a claim that made an order is not released; the order undone forgets it, and the key runs again", async () => {
      const user = await aUserId();
      const [undone, kept] = [await anOrderOf(user), await anOrderOf(user)];
      await claim(user, "k1", "A");
      await keys().recordOrder(user, "k1", at(0), undone);
      await answered(user, "k2", { status: 200, body: {} });
      await keys().recordOrder(user, "k2", at(0), kept);
      await keys().release(user, "k1", at(0));
      expect(await claim(user, "k1", "A", 1)).toMatchObject({ kind: "order_made" });
      await keys().forgetOrder(undone);
      await keys().forgetOrder(kept);
      expect(await claim(user, "k1", "A", 1)).toEqual({ kind: "claimed", claimedAt: at(1) });
      expect(await claim(user, "k2", "A", 1)).toEqual({ kind: "replay", response: { status: 200, body: {} } });
    });

    test("recordOrder leaves a claim taken over since alone", async () => {
      const user = await aUserId();
      const orderId = await anOrderOf(user);
      await claim(user, "k1", "A");
      await claim(user, "k1", "A", 6);
      await keys().recordOrder(user, "k1", at(0), orderId);
      expect(await claim(user, "k1", "A", 7)).toEqual({ kind: "in_flight" });
    });
  });
}
