import { describe, expect, test } from "bun:test";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { removeCartItem, updateCartItem } from "../../src/application/cart/change-cart-item.ts";
import { getCart } from "../../src/application/cart/get-cart.ts";
import { MAX_CART_LINES } from "../../src/domain/cart.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { auditEntries } from "../support/audit.ts";

const origin = { ipAddress: "198.51.100.7", userAgent: "cart-test" };

async function setUp() {
  const deps = createMemoryDeps();
  const ada = aUser();
  const bob = aUser();
  await deps.repos.users.create(ada);
  await deps.repos.users.create(bob);
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await deps.repos.products.create(sauce);
  return { deps, ada, bob, sauce };
}

describe("adding to the cart", () => {
  test("a product already in the cart has its line's quantity increased", async () => {
    const { deps, ada, sauce } = await setUp();
    const first = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, origin);
    const second = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 3 }, origin);
    expect(second.id).toBe(first.id);
    expect(second.quantity).toBe(5);
    const cart = await getCart(deps, ada.id);
    expect(cart).toMatchObject({ itemCount: 1, totalQuantity: 5, subtotal: 6495 });
  });

  test("stock is checked counting what the cart already holds", async () => {
    const { deps, ada, sauce } = await setUp();
    await addToCart(deps, ada.id, { productId: sauce.id, quantity: 8 }, origin);
    await expect(addToCart(deps, ada.id, { productId: sauce.id, quantity: 3 }, origin)).rejects.toMatchObject({
      code: "inventory.insufficient",
      details: { requested: 11, inCart: 8, available: 10 },
    });
    expect((await getCart(deps, ada.id)).totalQuantity).toBe(8);
  });

  test("an unknown or inactive product is not found", async () => {
    const { deps, ada } = await setUp();
    const retired = aProduct({ isActive: false });
    await deps.repos.products.create(retired);
    for (const productId of [retired.id, "z12345678901234567890123"]) {
      await expect(addToCart(deps, ada.id, { productId, quantity: 1 }, origin)).rejects.toMatchObject({ code: "product.not_found" });
    }
  });

  test(`a cart holds at most ${MAX_CART_LINES} different products, but a full cart can still grow a line`, async () => {
    const { deps, ada, sauce } = await setUp();
    await addToCart(deps, ada.id, { productId: sauce.id, quantity: 1 }, origin);
    for (let i = 1; i < MAX_CART_LINES; i++) {
      const p = aProduct();
      await deps.repos.products.create(p);
      await addToCart(deps, ada.id, { productId: p.id, quantity: 1 }, origin);
    }
    const extra = aProduct();
    await deps.repos.products.create(extra);
    await expect(addToCart(deps, ada.id, { productId: extra.id, quantity: 1 }, origin)).rejects.toMatchObject({ code: "cart.too_many_lines" });
    await expect(addToCart(deps, ada.id, { productId: sauce.id, quantity: 1 }, origin)).resolves.toMatchObject({ quantity: 2 });
  });

  test("each add is audited with user, changes, IP address and user agent", async () => {
    const { deps, ada, sauce } = await setUp();
    const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, origin);
    const [entry] = await auditEntries(deps.repos.audit, { action: "cart.add" });
    expect(entry).toMatchObject({
      userId: ada.id,
      entityType: "cart_item",
      entityId: line.id,
      changes: { productId: sauce.id, added: 2, quantity: 2 },
      ipAddress: "198.51.100.7",
      userAgent: "cart-test",
    });
  });

  test("each add is audited with the line it made or added to, and the line's quantity after it", async () => {
    const { deps, ada, sauce } = await setUp();
    const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 1 }, origin);
    expect(await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, origin)).toMatchObject({ id: line.id, quantity: 3 });
    const entries = (await auditEntries(deps.repos.audit, { action: "cart.add" })).sort((a, b) => Number(a.changes.quantity) - Number(b.changes.quantity));
    expect(entries.map((e) => ({ entityId: e.entityId, changes: e.changes, userId: e.userId, ipAddress: e.ipAddress }))).toEqual([
      { entityId: line.id, changes: { productId: sauce.id, added: 1, quantity: 1 }, userId: ada.id, ipAddress: origin.ipAddress },
      { entityId: line.id, changes: { productId: sauce.id, added: 2, quantity: 3 }, userId: ada.id, ipAddress: origin.ipAddress },
    ]);
  });
});

describe("changing and removing lines", () => {
  test("update sets the quantity, re-checking stock; remove deletes the line; both audited", async () => {
    const { deps, ada, sauce } = await setUp();
    const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, origin);
    await expect(updateCartItem(deps, ada.id, line.id, 7, origin)).resolves.toMatchObject({ quantity: 7 });
    await expect(updateCartItem(deps, ada.id, line.id, 11, origin)).rejects.toMatchObject({
      code: "inventory.insufficient",
      details: { requested: 11, available: 10 },
    });
    await removeCartItem(deps, ada.id, line.id, origin);
    expect((await getCart(deps, ada.id)).itemCount).toBe(0);
    const actions = (await auditEntries(deps.repos.audit, { entityId: line.id })).map((e) => e.action).sort();
    expect(actions).toEqual(["cart.add", "cart.remove", "cart.update"]);
    const [update] = await auditEntries(deps.repos.audit, { action: "cart.update" });
    expect(update?.changes).toEqual({ productId: sauce.id, from: 2, to: 7 });
  });

  test("a line whose product was taken off sale can be removed but not changed", async () => {
    const { deps, ada, sauce } = await setUp();
    const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, origin);
    await deps.repos.products.update(sauce.id, { isActive: false, updatedAt: new Date() });
    await expect(updateCartItem(deps, ada.id, line.id, 3, origin)).rejects.toMatchObject({ code: "product.not_found" });
    expect((await deps.repos.carts.lines(ada.id)).map((l) => l.quantity)).toEqual([2]);
    expect((await getCart(deps, ada.id)).itemCount).toBe(0);
    await removeCartItem(deps, ada.id, line.id, origin);
    expect(await deps.repos.carts.lines(ada.id)).toEqual([]);
  });

  test("another user's line is forbidden; an unknown line is not found; neither changes anything", async () => {
    const { deps, ada, bob, sauce } = await setUp();
    const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, origin);
    await expect(updateCartItem(deps, bob.id, line.id, 1, origin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(removeCartItem(deps, bob.id, line.id, origin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(updateCartItem(deps, ada.id, "z12345678901234567890123", 1, origin)).rejects.toMatchObject({ code: "cart.item_not_found" });
    expect((await getCart(deps, ada.id)).totalQuantity).toBe(2);
    expect(await auditEntries(deps.repos.audit, { action: "cart.update" })).toHaveLength(0);
  });
});
