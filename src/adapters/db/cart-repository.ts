import { type Selectable, sql } from "kysely";
import type { CartItem } from "../../domain/cart.ts";
import type { CartRepository } from "../../application/ports.ts";
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

export function createPgCartRepository(db: Db): CartRepository {
  return {
    async lockForChange(userId, productId) {
      // A transaction-scoped advisory lock per user: it serializes changes to one cart like a row
      // lock would, but lives in memory only (a row lock rewrites the user's tuple and WAL every time).
      await sql`select pg_advisory_xact_lock(${CART_LOCK_SPACE}, hashtext(${userId}))`.execute(db);
      // A separate statement on purpose: under READ COMMITTED, a statement that waited for the lock
      // still reads with the snapshot it took before waiting, so counting in the locking statement
      // would see the cart as it was before the transaction we waited for.
      const row = await db
        .selectFrom("cart_items")
        .select((eb) => [
          eb.fn.countAll<string>().as("line_count"),
          eb.fn.sum<string | null>("quantity").filterWhere("product_id", "=", productId ?? "").as("in_cart"),
        ])
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow();
      return { lineCount: Number(row.line_count), quantityInCart: Number(row.in_cart ?? 0) };
    },

    async lines(userId) {
      const rows = await db
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
          "products.price_cents",
          "products.compare_at_price_cents",
          "products.featured_image",
          "products.heat_level",
          "products.inventory",
          "products.is_active",
        ])
        .where("cart_items.user_id", "=", userId)
        .orderBy("cart_items.created_at")
        .orderBy("cart_items.id")
        .execute();
      return rows.map((row) => ({
        ...toCartItem(row),
        product: {
          id: row.product_id,
          name: row.name,
          slug: row.slug,
          price: row.price_cents,
          compareAtPrice: row.compare_at_price_cents,
          featuredImage: row.featured_image,
          heatLevel: row.heat_level,
          inventory: row.inventory,
          isActive: row.is_active,
        },
      }));
    },

    async findById(id) {
      const row = await db.selectFrom("cart_items").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toCartItem(row) : null;
    },

    async add({ id, userId, productId, quantity, at }) {
      const row = await db
        .insertInto("cart_items")
        .values({ id, user_id: userId, product_id: productId, quantity, created_at: at, updated_at: at })
        .onConflict((oc) =>
          oc.columns(["user_id", "product_id"]).doUpdateSet((eb) => ({
            quantity: eb("cart_items.quantity", "+", eb.ref("excluded.quantity")),
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCartItem(row);
    },

    async setQuantity(id, quantity, at) {
      const row = await db
        .updateTable("cart_items")
        .set({ quantity, updated_at: at })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      return row ? toCartItem(row) : null;
    },

    async remove(id) {
      const result = await db.deleteFrom("cart_items").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
