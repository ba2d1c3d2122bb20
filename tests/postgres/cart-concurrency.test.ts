import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { removeCartItem, updateCartItem } from "../../src/application/cart/change-cart-item.ts";
import { MAX_CART_LINES } from "../../src/domain/cart.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

const origin = { ipAddress: null, userAgent: null };
let database: TestDatabase;
let deps: ReturnType<typeof createPgDeps>;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createPgDeps(database.db);
});
beforeEach(() => database.truncate());
afterAll(() => database.drop());

async function customerAndProduct(inventory: number) {
  const user = aUser();
  const product = aProduct({ inventory });
  await deps.repos.users.create(user);
  await deps.repos.products.create(product);
  return { user, product };
}

const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);
const rejectedCodes = (results: PromiseSettledResult<unknown>[]) =>
  results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason.code);

describe("cart under concurrency (PostgreSQL)", () => {
  test("simultaneous adds of one product by one user end as one line with the summed quantity", async () => {
    for (let round = 0; round < 5; round++) {
      const { user, product } = await customerAndProduct(50);
      const results = await settle([2, 3].map((quantity) => addToCart(deps, user.id, { productId: product.id, quantity }, origin)));
      expect(results.every((r) => r.status === "fulfilled")).toBe(true);
      const lines = await deps.repos.carts.lines(user.id);
      expect(lines.map((l) => l.quantity)).toEqual([5]);
    }
  });

  test("many simultaneous adds never put more in the line than is in stock", async () => {
    const { user, product } = await customerAndProduct(5);
    const results = await settle(Array.from({ length: 20 }, () => addToCart(deps, user.id, { productId: product.id, quantity: 1 }, origin)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(new Set(rejectedCodes(results))).toEqual(new Set(["inventory.insufficient"]));
    expect((await deps.repos.carts.lines(user.id))[0]?.quantity).toBe(5);
    expect(await deps.repos.audit.list({ action: "cart.add" })).toHaveLength(5);
  });

  test(`simultaneous adds of new products never make more than ${MAX_CART_LINES} lines`, async () => {
    const user = aUser();
    await deps.repos.users.create(user);
    const products = Array.from({ length: MAX_CART_LINES + 4 }, () => aProduct({ inventory: 10 }));
    for (const p of products) await deps.repos.products.create(p);
    for (const p of products.slice(0, MAX_CART_LINES - 2)) await addToCart(deps, user.id, { productId: p.id, quantity: 1 }, origin);

    const results = await settle(products.slice(MAX_CART_LINES - 2).map((p) => addToCart(deps, user.id, { productId: p.id, quantity: 1 }, origin)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
    expect(new Set(rejectedCodes(results))).toEqual(new Set(["cart.too_many_lines"]));
    expect((await deps.repos.carts.lockForChange(user.id, null)).lineCount).toBe(MAX_CART_LINES);
  });

  test("one user's cart lock does not hold up another user's cart", async () => {
    const a = await customerAndProduct(10);
    const b = await customerAndProduct(10);
    const aLocked = Promise.withResolvers<void>();
    const releaseA = Promise.withResolvers<void>();
    const holdingA = deps.uow.transaction(async (tx) => {
      await tx.carts.lockForChange(a.user.id, null);
      aLocked.resolve();
      await releaseA.promise;
    });
    await aLocked.promise;
    // Finishes while A's lock is still held; were it blocked by it, this would wait until the test times out.
    const line = await addToCart(deps, b.user.id, { productId: b.product.id, quantity: 1 }, origin);
    releaseA.resolve();
    await holdingA;
    expect(line.quantity).toBe(1);
  });
});

describe("cart changes are atomic with their audit entry (PostgreSQL)", () => {
  test("when the audit row cannot be written, add, update and remove all leave the cart as it was", async () => {
    const { user, product } = await customerAndProduct(10);
    const line = await addToCart(deps, user.id, { productId: product.id, quantity: 2 }, origin);
    // From here on the database itself refuses every cart audit row, after the cart write in the same transaction.
    await sql`alter table audit_log add constraint refuse_cart_entries check (action not like 'cart.%') not valid`.execute(database.db);
    try {
      const other = aProduct({ inventory: 5 });
      await deps.repos.products.create(other);
      await expect(addToCart(deps, user.id, { productId: other.id, quantity: 1 }, origin)).rejects.toThrow("refuse_cart_entries");
      await expect(addToCart(deps, user.id, { productId: product.id, quantity: 1 }, origin)).rejects.toThrow("refuse_cart_entries");
      await expect(updateCartItem(deps, user.id, line.id, 7, origin)).rejects.toThrow("refuse_cart_entries");
      await expect(removeCartItem(deps, user.id, line.id, origin)).rejects.toThrow("refuse_cart_entries");
      const lines = await deps.repos.carts.lines(user.id);
      expect(lines.map((l) => [l.productId, l.quantity])).toEqual([[product.id, 2]]);
    } finally {
      await sql`alter table audit_log drop constraint refuse_cart_entries`.execute(database.db);
    }
  });
});
