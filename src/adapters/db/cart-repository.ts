import { type Selectable, sql } from "kysely";
import { type CartItem, type CartLine, MAX_LINE_QUANTITY } from "../../domain/cart.ts";
import type { CartRepository } from "../../application/ports/cart.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import type { CartItemsTable } from "./tables.ts";

function toCartItem(row: Selectable<CartItemsTable>): CartItem {
  return {
    id: row.id,
    userId: row.user_id,
    productId: row.product_id,
    quantity: row.quantity,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The first key of the cart's advisory locks, so they cannot collide with other uses of advisory locks. */
const CART_LOCK_SPACE = 0x0ca27;

// The cart's queries run on every cart request, so each is compiled once (see compile-once.ts).
const lockCart = compileOnce((db, userId: string) => db.selectNoFrom(sql<null>`pg_advisory_xact_lock(${CART_LOCK_SPACE}, hashtext(${userId}))`.as("locked")));

const summarize = compileOnce((db, userId: string, productId: string) =>
  db
    .selectFrom("cart_items")
    .select((eb) => [eb.fn.countAll<string>().as("line_count"), eb.fn.sum<string | null>("quantity").filterWhere("product_id", "=", productId).as("in_cart")])
    .where("user_id", "=", userId),
);

/** A user's lines with what the cart shows of their products, oldest first. */
const userLines = (db: Db, userId: string) =>
  db
    .selectFrom("cart_items")
    .innerJoin("products", "products.id", "cart_items.product_id")
    .select([
      "cart_items.id",
      "cart_items.user_id",
      "cart_items.product_id",
      "cart_items.quantity",
      "cart_items.created_at",
      "cart_items.updated_at",
      "products.name",
      "products.slug",
      "products.sku",
      "products.price_cents",
      "products.compare_at_price_cents",
      "products.featured_image",
      "products.heat_level",
      "products.inventory",
      "products.is_active",
    ])
    .where("cart_items.user_id", "=", userId)
    .orderBy("cart_items.created_at")
    .orderBy("cart_items.id");

const linesOf = compileOnce((db, userId: string) => userLines(db, userId));

// Checkout locks the lines it orders until its transaction ends (not their products: stock is taken by a conditional update).
const lockedLines = compileOnce((db, userId: string, ids: string[]) =>
  userLines(db, userId).where("cart_items.id", "=", sql<string>`any(${ids}::text[])`).forUpdate("cart_items"),
);
const allLockedLines = compileOnce((db, userId: string) => userLines(db, userId).forUpdate("cart_items"));

type LineRow = Awaited<ReturnType<typeof linesOf>>[number];

const toLine = (row: LineRow): CartLine => ({
  ...toCartItem(row),
  product: {
    id: row.product_id,
    name: row.name,
    slug: row.slug,
    sku: row.sku,
    price: row.price_cents,
    compareAtPrice: row.compare_at_price_cents,
    featuredImage: row.featured_image,
    heatLevel: row.heat_level,
    inventory: row.inventory,
    isActive: row.is_active,
  },
});

const itemById = compileOnce((db, id: string) => db.selectFrom("cart_items").selectAll().where("id", "=", id));

const upsert = compileOnce((db, id: string, userId: string, productId: string, quantity: number, at: Date) =>
  db
    .insertInto("cart_items")
    .values({ id, user_id: userId, product_id: productId, quantity, created_at: at, updated_at: at })
    .onConflict((oc) =>
      oc.columns(["user_id", "product_id"]).doUpdateSet((eb) => ({
        quantity: eb("cart_items.quantity", "+", eb.ref("excluded.quantity")),
        updated_at: eb.ref("excluded.updated_at"),
      })),
    )
    .returningAll(),
);

const setQuantity = compileOnce((db, id: string, quantity: number, at: Date) =>
  db.updateTable("cart_items").set({ quantity, updated_at: at }).where("id", "=", id).returningAll(),
);

const removeItem = compileOnce((db, id: string) => db.deleteFrom("cart_items").where("id", "=", id).returning("id"));
const removeItems = compileOnce((db, ids: string[]) => db.deleteFrom("cart_items").where("id", "=", sql<string>`any(${ids}::text[])`));

export function createPgCartRepository(db: Db): CartRepository {
  return {
    async lockForChange(userId, productId) {
      // A transaction-scoped advisory lock per user: it serializes changes to one cart like a row
      // lock would, but lives in memory only (a row lock rewrites the user's tuple and WAL every time).
      await lockCart(db, userId);
      // A separate statement on purpose: under READ COMMITTED, a statement that waited for the lock
      // still reads with the snapshot it took before waiting, so counting in the locking statement
      // would see the cart as it was before the transaction we waited for.
      const [row] = await summarize(db, userId, productId ?? "");
      return { lineCount: Number(row?.line_count ?? 0), quantityInCart: Number(row?.in_cart ?? 0) };
    },

    async lines(userId) {
      return (await linesOf(db, userId)).map(toLine);
    },

    async findById(id) {
      const [row] = await itemById(db, id);
      return row ? toCartItem(row) : null;
    },

    async add({ id, userId, productId, quantity, at }) {
      const [row] = await upsert(db, id, userId, productId, quantity, at);
      if (!row) throw new Error("cart upsert returned no row");
      return toCartItem(row);
    },

    async setQuantity(id, quantity, at) {
      const [row] = await setQuantity(db, id, quantity, at);
      return row ? toCartItem(row) : null;
    },

    async remove(id) {
      return (await removeItem(db, id)).length > 0;
    },

    async lockLines(userId, ids) {
      // A line deleted while we waited for its lock (another checkout took it) is simply not returned.
      return (ids === null ? await allLockedLines(db, userId) : await lockedLines(db, userId, [...ids])).map(toLine);
    },

    async removeLines(ids) {
      await removeItems(db, [...ids]);
    },

    async restoreLines(lines) {
      if (lines.length === 0) return;
      await db
        .insertInto("cart_items")
        .values(
          lines.map((l) => ({ id: l.id, user_id: l.userId, product_id: l.productId, quantity: l.quantity, created_at: l.createdAt, updated_at: l.updatedAt })),
        )
        .onConflict((oc) =>
          oc.columns(["user_id", "product_id"]).doUpdateSet((eb) => ({
            quantity: sql<number>`least(${MAX_LINE_QUANTITY}, ${eb.ref("cart_items.quantity")} + ${eb.ref("excluded.quantity")})`,
          })),
        )
        .execute();
    },
  };
}
