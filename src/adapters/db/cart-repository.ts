import type { Selectable } from "kysely";
import type { CartItem } from "../../domain/cart.ts";
import type { CartRepository } from "../../application/ports.ts";
import type { Db } from "./database.ts";
import { toProduct } from "./product-repository.ts";
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

export function createPgCartRepository(db: Db): CartRepository {
  return {
    async lock(userId) {
      // The user's row stands for their cart; NO KEY UPDATE leaves foreign-key checks (orders, lines) unblocked.
      await db.selectFrom("users").select("id").where("id", "=", userId).forNoKeyUpdate().execute();
    },

    async lines(userId) {
      const rows = await db
        .selectFrom("cart_items")
        .innerJoin("products", "products.id", "cart_items.product_id")
        .selectAll("products")
        .select([
          "cart_items.id as item_id",
          "cart_items.user_id as item_user_id",
          "cart_items.quantity as item_quantity",
          "cart_items.created_at as item_created_at",
          "cart_items.updated_at as item_updated_at",
        ])
        .where("cart_items.user_id", "=", userId)
        .orderBy("cart_items.created_at")
        .orderBy("cart_items.id")
        .execute();
      return rows.map((row) => ({
        id: row.item_id,
        userId: row.item_user_id,
        productId: row.id,
        quantity: row.item_quantity,
        createdAt: row.item_created_at,
        updatedAt: row.item_updated_at,
        product: toProduct(row),
      }));
    },

    async findById(id) {
      const row = await db.selectFrom("cart_items").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toCartItem(row) : null;
    },

    async findLine(userId, productId) {
      const row = await db
        .selectFrom("cart_items")
        .selectAll()
        .where("user_id", "=", userId)
        .where("product_id", "=", productId)
        .executeTakeFirst();
      return row ? toCartItem(row) : null;
    },

    async countLines(userId) {
      const { count } = await db
        .selectFrom("cart_items")
        .select((eb) => eb.fn.countAll<string>().as("count"))
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow();
      return Number(count);
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
