import { type Selectable, sql } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import type { AuditEntry } from "../../domain/audit.ts";
import { type CartItem, type CartLine, type CartProduct, MAX_LINE_QUANTITY } from "../../domain/cart.ts";
import type { CartAddition, CartRepository } from "../../application/ports/cart.ts";
import { auditArgs, auditValuesAt, insertAuditAfter } from "./audit-log.ts";
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

/** What the cart shows of a product, as the cart's reads select it. */
const PRODUCT_COLUMNS = [
  "products.id",
  "products.name",
  "products.slug",
  "products.sku",
  "products.price_cents",
  "products.compare_at_price_cents",
  "products.featured_image",
  "products.heat_level",
  "products.inventory",
  "products.is_active",
] as const;
/** The same beside a cart line, which names its product already. */
const LINE_PRODUCT_COLUMNS = PRODUCT_COLUMNS.filter((column) => column !== "products.id");

// The cart's size (its lines on sale), its lines off sale (oldest first), what it holds of the
// product, and the product itself (as a JSON object): one statement.
const summarize = compileOnce((db, userId: string, productId: string) =>
  db
    .selectFrom("cart_items")
    .leftJoin("products as held", "held.id", "cart_items.product_id")
    .select((eb) => [
      eb.fn.countAll<string>().filterWhere("held.is_active", "=", true).as("line_count"),
      sql<
        string[] | null
      >`array_agg(${eb.ref("cart_items.id")} order by ${eb.ref("cart_items.created_at")}, ${eb.ref("cart_items.id")}) filter (where ${eb.ref("held.is_active")} is not true)`.as(
        "off_sale",
      ),
      eb.fn.sum<string | null>("cart_items.quantity").filterWhere("cart_items.product_id", "=", productId).as("in_cart"),
      jsonObjectFrom(eb.selectFrom("products").select(PRODUCT_COLUMNS).where("products.id", "=", productId)).as("product"),
    ])
    .where("cart_items.user_id", "=", userId),
);

/** A user's lines with what the cart shows of their products, oldest first. */
const userLines = (db: Db, userId: string) =>
  db
    .selectFrom("cart_items")
    .innerJoin("products", "products.id", "cart_items.product_id")
    .select(["cart_items.id", "cart_items.user_id", "cart_items.product_id", "cart_items.quantity", "cart_items.created_at", "cart_items.updated_at"])
    .select(LINE_PRODUCT_COLUMNS)
    .where("cart_items.user_id", "=", userId)
    .orderBy("cart_items.created_at")
    .orderBy("cart_items.id");

const linesOf = compileOnce((db, userId: string) => userLines(db, userId));

// A checkout takes the lines it orders out of the cart, and reads them as they were, in one statement.
const takenLines = compileOnce((db, userId: string, ids: string[]) =>
  db
    .with("taken", (qb) => qb.deleteFrom("cart_items").where("user_id", "=", userId).where("id", "=", sql<string>`any(${ids}::text[])`).returningAll())
    .selectFrom("taken as cart_items")
    .innerJoin("products", "products.id", "cart_items.product_id")
    .select(["cart_items.id", "cart_items.user_id", "cart_items.product_id", "cart_items.quantity", "cart_items.created_at", "cart_items.updated_at"])
    .select(LINE_PRODUCT_COLUMNS)
    .orderBy("cart_items.created_at")
    .orderBy("cart_items.id"),
);

type LineRow = Awaited<ReturnType<typeof linesOf>>[number];

type ProductColumns = Omit<LineRow, keyof CartItemsTable>;

const toProduct = (id: string, row: ProductColumns): CartProduct => ({
  id,
  name: row.name,
  slug: row.slug,
  sku: row.sku,
  price: row.price_cents,
  compareAtPrice: row.compare_at_price_cents,
  featuredImage: row.featured_image,
  heatLevel: row.heat_level,
  inventory: row.inventory,
  isActive: row.is_active,
});

const toLine = (row: LineRow): CartLine => ({ ...toCartItem(row), product: toProduct(row.product_id, row) });

const itemById = compileOnce((db, id: string) => db.selectFrom("cart_items").selectAll().where("id", "=", id));

/** The line added to (or made), and its audit entry naming the line as the upsert left it, in one statement (compiled once: see compile-once.ts). */
const upsertStatement = compileOnce((_db, id: string, userId: string, productId: string, quantity: number, at: Date, ...audit: unknown[]) => {
  const entry = insertAuditAfter("added", auditValuesAt(audit, 0, true), {
    entityId: sql.ref("added.id"),
    changes: sql`jsonb_build_object('quantity', added.quantity)`,
  });
  return sql<Selectable<CartItemsTable>>`
    with added as (
      insert into cart_items (id, user_id, product_id, quantity, created_at, updated_at) values (${id}, ${userId}, ${productId}, ${quantity}, ${at}, ${at})
      on conflict (user_id, product_id) do update set quantity = cart_items.quantity + excluded.quantity, updated_at = excluded.updated_at
      returning *
    ), audit as (${entry})
    select * from added`;
});

const upsert = (db: Db, { id, userId, productId, quantity, at }: CartAddition, audit: Omit<AuditEntry, "entityId">) =>
  upsertStatement(db, id, userId, productId, quantity, at, ...auditArgs({ ...audit, entityId: null }, true));

const setQuantity = compileOnce((db, id: string, quantity: number, at: Date) =>
  db.updateTable("cart_items").set({ quantity, updated_at: at }).where("id", "=", id).returningAll(),
);

const removeItem = compileOnce((db, id: string) => db.deleteFrom("cart_items").where("id", "=", id).returning("id"));

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
      return {
        lineCount: Number(row?.line_count ?? 0),
        offSale: row?.off_sale ?? [],
        quantityInCart: Number(row?.in_cart ?? 0),
        product: row?.product ? toProduct(row.product.id, row.product) : null,
      };
    },

    async lines(userId) {
      return (await linesOf(db, userId)).map(toLine);
    },

    async findById(id) {
      const [row] = await itemById(db, id);
      return row ? toCartItem(row) : null;
    },

    async add(addition, audit) {
      const [row] = await upsert(db, addition, audit);
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

    async takeLines(userId, ids) {
      // A line deleted while we waited for its lock (another checkout took it) is simply not returned.
      return (await takenLines(db, userId, [...ids])).map(toLine);
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
