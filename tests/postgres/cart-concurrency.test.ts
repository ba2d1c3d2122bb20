import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type KyselyPlugin, sql } from "kysely";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { removeCartItem, updateCartItem } from "../../src/application/cart/change-cart-item.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { MAX_CART_LINES } from "../../src/domain/cart.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { auditEntries } from "../support/audit.ts";

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
    expect(await auditEntries(deps.repos.audit, { action: "cart.add" })).toHaveLength(5);
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

describe("an add racing a checkout is audited as the line it made (PostgreSQL)", () => {
  const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
  const cartAdds = async (userId: string) =>
    (await auditEntries(deps.repos.audit, { action: "cart.add", userId })).sort(
      (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
    );

  /** Until `count` backends of the test's database wait on a lock (each statement polled is a few ms; 5 s at most). */
  async function lockWaiters(count: number) {
    for (let polls = 0; polls < 500; polls++) {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
      if (rows[0]!.n >= count) return;
      await Bun.sleep(10);
    }
    throw new Error(`never saw ${count} backends waiting on a lock`);
  }

  test("the checkout's delete not committed yet: the add makes a new line, and its entry names that line and its quantity", async () => {
    const { user, product } = await customerAndProduct(50);
    const ordered = await addToCart(deps, user.id, { productId: product.id, quantity: 2 }, origin);
    // The product's row held elsewhere: the checkout stops at the stock, its lines deleted and not committed.
    const holder = await database.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`select id from products where id = ${product.id} for update`.execute(conn);
      const checkout = placeOrder(deps, DEFAULT_ORDER_SETTINGS, user.id, { cartItemIds: null, shippingAddress: texas }, origin);
      await lockWaiters(1);
      // The add sees the line still there (its cart summary reads before the delete commits); its upsert waits for that row.
      const add = addToCart(deps, user.id, { productId: product.id, quantity: 1 }, origin);
      await lockWaiters(2);
      await sql`commit`.execute(conn);
      return { checkout: await checkout, added: await add };
    });
    const [line] = await deps.repos.carts.lines(user.id);
    expect(line).toMatchObject({ id: holder.added.id, quantity: 1 });
    expect(holder.added.id).not.toBe(ordered.id);
    expect((await cartAdds(user.id)).map((e) => [e.entityId, e.changes.quantity])).toEqual([
      [ordered.id, 2],
      [line!.id, 1],
    ]);
  });

  test("a failed checkout's lines put back while an add was deciding: the put-back waits for the add, then adds to the line it made; the add's entry names that line and its own quantity", async () => {
    const { user, product } = await customerAndProduct(50);
    const ordered = await addToCart(deps, user.id, { productId: product.id, quantity: 2 }, origin);
    // The add held between its cart summary (no line of the product: the checkout took it) and its upsert.
    let summaryRead!: () => void;
    const atSummary = new Promise<void>((resolve) => (summaryRead = resolve));
    let goOn!: () => void;
    const held = new Promise<void>((resolve) => (goOn = resolve));
    let armed = false;
    const holdAfterSummary: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        if (armed && args.result.rows[0] && "line_count" in args.result.rows[0]) {
          armed = false;
          summaryRead();
          await held;
        }
        return args.result;
      },
    };
    let failIntent!: () => void;
    const intentFails = new Promise<void>((resolve) => (failIntent = resolve));
    const failing = {
      ...deps,
      payments: {
        ...deps.payments,
        createIntent: async () => {
          await intentFails;
          throw new Error("the processor refused the intent");
        },
      },
    };
    const checkout = placeOrder(failing, DEFAULT_ORDER_SETTINGS, user.id, { cartItemIds: null, shippingAddress: texas }, origin).catch((error) => error);
    for (let polls = 0; (await deps.repos.carts.lines(user.id)).length > 0; polls++) {
      if (polls > 500) throw new Error("the checkout never took the line");
      await Bun.sleep(10);
    }
    armed = true;
    const add = addToCart(createPgDeps(database.db.withPlugin(holdAfterSummary)), user.id, { productId: product.id, quantity: 1 }, origin);
    await atSummary;
    failIntent();
    // The put-back takes the cart's lock, as an add does: it waits for the add, which holds it.
    await lockWaiters(1);
    goOn();
    const [failed, added] = await Promise.all([checkout, add]);
    expect(failed).toMatchObject({ code: "order.creation_failed" });
    expect(added).toMatchObject({ quantity: 1 });
    expect(added.id).not.toBe(ordered.id);
    const [line] = await deps.repos.carts.lines(user.id);
    expect(line).toMatchObject({ id: added.id, quantity: 3 });
    expect((await cartAdds(user.id)).map((e) => [e.entityId, e.changes.quantity])).toEqual([
      [ordered.id, 2],
      [added.id, 1],
    ]);
  });
});
