import { describe, expect, test } from "bun:test";
import type { CartAddition } from "../../src/application/ports/cart.ts";
import type { AuditEntry } from "../../src/domain/audit.ts";
import { CART_PRODUCT_FIELDS, type CartProduct } from "../../src/domain/cart.ts";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { Product } from "../../src/domain/product.ts";
import type { User } from "../../src/domain/user.ts";
import { aProduct, aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";
import { auditEntries } from "../support/audit.ts";

const createId = cuid2Ids.next;

const t1 = new Date("2026-03-01T09:00:00.000Z");
const t2 = new Date("2026-03-01T10:15:30.250Z");
const t3 = new Date("2026-03-02T08:00:00.500Z");

export function cartRepositoryContract(target: () => ContractTarget) {
  describe("CartRepository", () => {
    const repo = () => target().repos.carts;
    const entryOf = (a: CartAddition): Omit<AuditEntry, "entityId"> => ({
      id: createId(),
      userId: a.userId,
      action: "cart.add",
      entityType: "cart_item",
      changes: { productId: a.productId, added: a.quantity },
      ipAddress: "203.0.113.9",
      userAgent: "contract",
      createdAt: a.at,
    });
    const add = (a: CartAddition) => repo().add(a, entryOf(a));

    async function aStoredUser(): Promise<User> {
      const user = aUser();
      await target().repos.users.create(user);
      return user;
    }

    async function aStoredProduct(overrides: Partial<Product> = {}): Promise<Product> {
      const product = aProduct(overrides);
      await target().repos.products.create(product);
      return product;
    }

    test("add creates a line and returns it", async () => {
      const user = await aStoredUser();
      const product = await aStoredProduct();
      const id = createId();
      const line = await add({ id, userId: user.id, productId: product.id, quantity: 2, at: t1 });
      const expected = { id, userId: user.id, productId: product.id, quantity: 2, createdAt: t1, updatedAt: t1 };
      expect(line).toEqual(expected);
      expect(await repo().findById(id)).toEqual(expected);
    });

    test("a second add for the same user and product increments that same line", async () => {
      const user = await aStoredUser();
      const product = await aStoredProduct();
      const id = createId();
      await add({ id, userId: user.id, productId: product.id, quantity: 2, at: t1 });
      const otherId = createId();
      const line = await add({ id: otherId, userId: user.id, productId: product.id, quantity: 3, at: t2 });
      const expected = { id, userId: user.id, productId: product.id, quantity: 5, createdAt: t1, updatedAt: t2 };
      expect(line).toEqual(expected);
      expect(await repo().findById(id)).toEqual(expected);
      expect(await repo().findById(otherId)).toBeNull();
      expect((await repo().lockForChange(user.id, null)).lineCount).toBe(1);
    });

    test("the same product for another user is a separate line", async () => {
      const ada = await aStoredUser();
      const bob = await aStoredUser();
      const product = await aStoredProduct();
      const adaLine = await add({ id: createId(), userId: ada.id, productId: product.id, quantity: 2, at: t1 });
      const bobLine = await add({ id: createId(), userId: bob.id, productId: product.id, quantity: 4, at: t2 });
      expect(bobLine.id).not.toBe(adaLine.id);
      expect(bobLine).toEqual({ id: bobLine.id, userId: bob.id, productId: product.id, quantity: 4, createdAt: t2, updatedAt: t2 });
      expect(await repo().findById(adaLine.id)).toEqual(adaLine);
      expect(adaLine.quantity).toBe(2);
      expect((await repo().lockForChange(ada.id, null)).lineCount).toBe(1);
      expect((await repo().lockForChange(bob.id, null)).lineCount).toBe(1);
    });

    test("lines are the user's only, oldest first, each with the product fields a cart shows", async () => {
      const user = await aStoredUser();
      const other = await aStoredUser();
      const first = await aStoredProduct({ price: 333, compareAtPrice: 499 });
      const second = await aStoredProduct({ price: 1 });
      const third = await aStoredProduct();
      // Added out of age order, so that insertion order is not what sorts them.
      const newest = await add({ id: createId(), userId: user.id, productId: second.id, quantity: 1, at: t3 });
      const oldest = await add({ id: createId(), userId: user.id, productId: first.id, quantity: 3, at: t1 });
      await add({ id: createId(), userId: other.id, productId: third.id, quantity: 7, at: t2 });

      const lines = await repo().lines(user.id);
      const shown = (p: typeof first) => Object.fromEntries(CART_PRODUCT_FIELDS.map((f) => [f, p[f]]));
      expect(lines).toEqual([
        { ...oldest, product: shown(first) },
        { ...newest, product: shown(second) },
      ] as typeof lines);
      expect((await repo().lines(other.id)).map((l) => l.productId)).toEqual([third.id]);
      expect(await repo().lines(createId())).toEqual([]);
    });

    test("lines include a product taken off sale, marked as such", async () => {
      const user = await aStoredUser();
      const product = await aStoredProduct();
      await add({ id: createId(), userId: user.id, productId: product.id, quantity: 2, at: t1 });
      await target().repos.products.update(product.id, { isActive: false, updatedAt: t2 });
      const [line] = await repo().lines(user.id);
      expect(line?.product).toMatchObject({ id: product.id, isActive: false });
    });

    test("add writes its audit entry in the same statement, naming the line it made or added to and its quantity after the add", async () => {
      const user = await aStoredUser();
      const product = await aStoredProduct();
      const first = { id: createId(), userId: user.id, productId: product.id, quantity: 2, at: t1 };
      const second = { ...first, id: createId(), quantity: 3, at: t2 };
      const entries = [entryOf(first), entryOf(second)];
      await target().uow.transaction((tx) => tx.carts.add(first, entries[0]!));
      await target().uow.transaction((tx) => tx.carts.add(second, entries[1]!));
      const written = await auditEntries(target().repos.audit, { action: "cart.add" });
      expect(written.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())).toEqual([
        { ...entries[0]!, entityId: first.id, changes: { ...entries[0]!.changes, quantity: 2 } },
        { ...entries[1]!, entityId: first.id, changes: { ...entries[1]!.changes, quantity: 5 } },
      ]);
    });

    test("findById, and what lockForChange reports: line count, the product's quantity, and the product as the cart shows it", async () => {
      const user = await aStoredUser();
      const other = await aStoredUser();
      const chili = await aStoredProduct();
      const garlic = await aStoredProduct();
      const chiliLine = await add({ id: createId(), userId: user.id, productId: chili.id, quantity: 1, at: t1 });
      const garlicLine = await add({ id: createId(), userId: user.id, productId: garlic.id, quantity: 2, at: t2 });

      expect(await repo().findById(chiliLine.id)).toEqual(chiliLine);
      expect(await repo().findById("no-such-line")).toBeNull();

      const shown = Object.fromEntries(CART_PRODUCT_FIELDS.map((f) => [f, garlic[f]])) as CartProduct;
      expect(await repo().lockForChange(user.id, garlic.id)).toEqual({
        lineCount: 2,
        offSale: [],
        quantityInCart: garlicLine.quantity,
        product: shown,
      });
      expect(await repo().lockForChange(other.id, garlic.id)).toEqual({ lineCount: 0, offSale: [], quantityInCart: 0, product: shown });
      expect(await repo().lockForChange(user.id, "no-such-product")).toEqual({ lineCount: 2, offSale: [], quantityInCart: 0, product: null });
      expect(await repo().lockForChange(user.id, null)).toEqual({ lineCount: 2, offSale: [], quantityInCart: 0, product: null });

      expect((await repo().lockForChange(user.id, null)).lineCount).toBe(2);
      expect((await repo().lockForChange(other.id, null)).lineCount).toBe(0);
    });

    test("lockForChange counts the lines on sale only, and names those off sale, oldest first", async () => {
      const user = await aStoredUser();
      const [first, second, third] = [await aStoredProduct(), await aStoredProduct(), await aStoredProduct()];
      const lines = [
        await add({ id: createId(), userId: user.id, productId: third.id, quantity: 1, at: t3 }),
        await add({ id: createId(), userId: user.id, productId: first.id, quantity: 1, at: t1 }),
        await add({ id: createId(), userId: user.id, productId: second.id, quantity: 1, at: t2 }),
      ];
      for (const product of [third, first]) await target().repos.products.update(product.id, { isActive: false, updatedAt: t3 });
      expect(await repo().lockForChange(user.id, second.id)).toMatchObject({ lineCount: 1, offSale: [lines[1]!.id, lines[0]!.id], quantityInCart: 1 });
    });

    test("setQuantity returns the updated line; an unknown line is null", async () => {
      const user = await aStoredUser();
      const product = await aStoredProduct();
      const line = await add({ id: createId(), userId: user.id, productId: product.id, quantity: 2, at: t1 });
      const updated = await repo().setQuantity(line.id, 7, t2);
      const expected = { ...line, quantity: 7, updatedAt: t2 };
      expect(updated).toEqual(expected);
      expect(await repo().findById(line.id)).toEqual(expected);
      expect(await repo().setQuantity("no-such-line", 3, t2)).toBeNull();
      expect(await repo().findById("no-such-line")).toBeNull();
    });

    test("remove deletes the line once", async () => {
      const user = await aStoredUser();
      const kept = await aStoredProduct();
      const removed = await aStoredProduct();
      const keptLine = await add({ id: createId(), userId: user.id, productId: kept.id, quantity: 1, at: t1 });
      const line = await add({ id: createId(), userId: user.id, productId: removed.id, quantity: 1, at: t2 });
      expect(await repo().remove(line.id)).toBe(true);
      expect(await repo().remove(line.id)).toBe(false);
      expect(await repo().findById(line.id)).toBeNull();
      expect((await repo().lockForChange(user.id, removed.id)).quantityInCart).toBe(0);
      expect((await repo().lockForChange(user.id, null)).lineCount).toBe(1);
      expect((await repo().lines(user.id)).map((l) => l.id)).toEqual([keptLine.id]);
    });

    test("lockForChange holds an existing user's cart inside a transaction without error", async () => {
      const user = await aStoredUser();
      const product = await aStoredProduct();
      const line = await target().uow.transaction(async (tx) => {
        await tx.carts.lockForChange(user.id, product.id);
        const addition = { id: createId(), userId: user.id, productId: product.id, quantity: 1, at: t1 };
        return tx.carts.add(addition, entryOf(addition));
      });
      expect(await repo().findById(line.id)).toEqual(line);
    });

    test("takeLines takes the user's lines asked for out of the cart and returns them with their products, oldest first; others' and unknown ids are left alone", async () => {
      const user = await aStoredUser();
      const other = await aStoredUser();
      const [p1, p2, p3] = [await aStoredProduct(), await aStoredProduct(), await aStoredProduct()];
      const l1 = await add({ id: createId(), userId: user.id, productId: p1.id, quantity: 1, at: t1 });
      const l2 = await add({ id: createId(), userId: user.id, productId: p2.id, quantity: 2, at: t2 });
      const l3 = await add({ id: createId(), userId: user.id, productId: p3.id, quantity: 3, at: t3 });
      const theirs = await add({ id: createId(), userId: other.id, productId: p3.id, quantity: 1, at: t1 });
      const taken = await target().uow.transaction((tx) => tx.carts.takeLines(user.id, [l2.id, l1.id, theirs.id, "z12345678901234567890123"]));
      expect(taken.map((l) => [l.id, l.quantity, l.product.sku])).toEqual([
        [l1.id, 1, p1.sku],
        [l2.id, 2, p2.sku],
      ]);
      expect((await repo().lines(user.id)).map((l) => l.id)).toEqual([l3.id]);
      expect((await repo().lines(other.id)).map((l) => l.id)).toEqual([theirs.id]);
      // Undone with its transaction.
      const undone = target().uow.transaction(async (tx) => {
        expect(await tx.carts.takeLines(user.id, [l3.id])).toHaveLength(1);
        throw new Error("the order could not be written");
      });
      await expect(undone).rejects.toThrow("the order could not be written");
      expect((await repo().lines(user.id)).map((l) => l.id)).toEqual([l3.id]);
    });

    test("takeLines removes them; restoreLines puts them back as they were, or adds to a line the user made since (up to 99)", async () => {
      const user = await aStoredUser();
      const [p1, p2] = [await aStoredProduct(), await aStoredProduct()];
      const l1 = await add({ id: createId(), userId: user.id, productId: p1.id, quantity: 3, at: t1 });
      const l2 = await add({ id: createId(), userId: user.id, productId: p2.id, quantity: 98, at: t2 });
      await repo().takeLines(user.id, [l1.id, l2.id]);
      expect(await repo().lines(user.id)).toEqual([]);
      const since = await add({ id: createId(), userId: user.id, productId: p2.id, quantity: 5, at: t3 });
      await repo().restoreLines([l1, l2]);
      expect(await repo().findById(l1.id)).toEqual(l1);
      expect((await repo().findById(since.id))?.quantity).toBe(99);
    });
  });
}
