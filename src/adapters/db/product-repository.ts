import { type SelectQueryBuilder, sql } from "kysely";
import { DomainError } from "../../domain/errors.ts";
import { MAX_INVENTORY, type Product, type ProductSort } from "../../domain/product.ts";
import { type PageRequest, offsetOf } from "../../domain/paging.ts";
import type { ProductRepository } from "../../application/ports/catalog.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import { containsPattern, totalOf, violatedUniqueConstraint } from "./sql-helpers.ts";
import type { Database, ProductRow } from "./tables.ts";

const lowerName = sql<string>`lower(name) collate "C"`;

const orderings: Record<ProductSort, Array<[ReturnType<typeof sql> | keyof ProductRow, "asc" | "desc"]>> = {
  newest: [
    ["created_at", "desc"],
    ["id", "asc"],
  ],
  price_asc: [
    ["price_cents", "asc"],
    ["id", "asc"],
  ],
  price_desc: [
    ["price_cents", "desc"],
    ["id", "asc"],
  ],
  name_asc: [
    [lowerName, "asc"],
    ["id", "asc"],
  ],
  name_desc: [
    [lowerName, "desc"],
    ["id", "asc"],
  ],
  heat_asc: [
    ["heat_level", "asc"],
    ["id", "asc"],
  ],
  heat_desc: [
    ["heat_level", "desc"],
    ["id", "asc"],
  ],
};

export function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    price: row.price_cents,
    compareAtPrice: row.compare_at_price_cents,
    sku: row.sku,
    featuredImage: row.featured_image,
    images: row.images,
    heatLevel: row.heat_level,
    inventory: row.inventory,
    isActive: row.is_active,
    isFeatured: row.is_featured,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A product's columns as the repository reads them, its images as JSON: pg parses an array's text
 * character by character in JavaScript (postgres-array), a tenth of the CPU a catalog page cost
 * and most of its garbage; JSON is parsed natively.
 */
const PRODUCT_ROW = [
  "products.id",
  "products.name",
  "products.slug",
  "products.description",
  "products.price_cents",
  "products.compare_at_price_cents",
  "products.sku",
  "products.featured_image",
  sql<string[]>`to_json(products.images)`.as("images"),
  "products.heat_level",
  "products.inventory",
  "products.is_active",
  "products.is_featured",
  "products.created_at",
  "products.updated_at",
] as const;

// Product pages and every cart change read one product, so these are compiled once (see compile-once.ts).
// The id first, should a slug ever equal another product's id.
const byIdOrSlug = compileOnce((db, id: string, slug: string, sameId: string) =>
  db
    .selectFrom("products")
    .select(PRODUCT_ROW)
    .where((eb) => eb.or([eb("id", "=", id), eb("slug", "=", slug)]))
    .orderBy(sql`id = ${sameId}`, "desc")
    .limit(1),
);
const byId = compileOnce((db, id: string) => db.selectFrom("products").select(PRODUCT_ROW).where("id", "=", id));

/** (product id, quantity) pairs as rows: PostgreSQL zips set-returning functions side by side in a select list. */
const pairs = (db: Db, ids: string[], quantities: number[]) =>
  db.selectNoFrom([sql<string>`unnest(${ids}::text[])`.as("id"), sql<number>`unnest(${quantities}::int[])`.as("quantity")]);

/**
 * Every statement that changes several products' stock locks their rows in id order first: two of
 * them touching the same products then queue instead of deadlocking. FOR NO KEY UPDATE, the lock
 * the update itself takes: it queues stock changes behind each other but not the key-share locks
 * of rows that refer to the product (a cart line or an order line being written), which FOR
 * UPDATE would hold back until the stock change commits.
 */
const lockedInOrder = (db: Db, ids: string[], quantities: number[]) =>
  db
    .with("lines", () => pairs(db, ids, quantities))
    .with("locked", (qb) =>
      qb
        .selectFrom("products")
        .select("products.id")
        .where("products.id", "in", (eb) => eb.selectFrom("lines").select("lines.id"))
        .orderBy("products.id")
        .forNoKeyUpdate(),
    );

/** Takes stock for a checkout: each product only if it is on sale and has the quantity, so stock never goes below zero. */
const takeStock = compileOnce((db, ids: string[], quantities: number[], at: Date) =>
  lockedInOrder(db, ids, quantities)
    .updateTable("products")
    .from("lines")
    .set((eb) => ({ inventory: eb("products.inventory", "-", eb.ref("lines.quantity")), updated_at: at }))
    .whereRef("products.id", "=", "lines.id")
    .where("products.id", "in", (eb) => eb.selectFrom("locked").select("locked.id"))
    .where("products.is_active", "=", true)
    .whereRef("products.inventory", ">=", "lines.quantity")
    .returning("products.id"),
);

const returnStock = compileOnce((db, ids: string[], quantities: number[], at: Date) =>
  lockedInOrder(db, ids, quantities)
    .updateTable("products")
    .from("lines")
    .set((eb) => ({ inventory: eb("products.inventory", "+", eb.ref("lines.quantity")), updated_at: at }))
    .whereRef("products.id", "=", "lines.id")
    .where("products.id", "in", (eb) => eb.selectFrom("locked").select("locked.id")),
);

const stockOf = compileOnce((db, ids: string[]) =>
  db.selectFrom("products").select(["id", "name", "inventory", "is_active"]).where("id", "=", sql<string>`any(${ids}::text[])`),
);

export function createPgProductRepository(db: Db): ProductRepository {
  return {
    async list(query) {
      // A literal, so a prepared statement's generic plan can read the partial indexes of active products.
      let matching = db.selectFrom("products").where("is_active", "=", sql.lit(true));
      if (query.search !== undefined) {
        const pattern = containsPattern(query.search);
        matching = matching.where((eb) => eb.or([eb("name", "ilike", pattern), eb("description", "ilike", pattern)]));
      }
      if (query.heatLevel !== undefined) matching = matching.where("heat_level", "=", query.heatLevel);
      if (query.minPrice !== undefined) matching = matching.where("price_cents", ">=", query.minPrice);
      if (query.maxPrice !== undefined) matching = matching.where("price_cents", "<=", query.maxPrice);
      return pageOf(matching, query, query.sort);
    },

    listForAdmin(query) {
      let matching = db.selectFrom("products");
      if (query.q !== undefined) {
        const pattern = containsPattern(query.q);
        matching = matching.where((eb) => eb.or([eb("name", "ilike", pattern), eb("sku", "ilike", pattern)]));
      }
      if (query.isActive !== undefined) matching = matching.where("is_active", "=", sql.lit(query.isActive));
      if (query.maxInventory !== undefined) matching = matching.where("inventory", "<=", query.maxInventory);
      return pageOf(matching, query, "newest");
    },

    async findBySku(sku) {
      const row = await db.selectFrom("products").select(PRODUCT_ROW).where("sku", "=", sku).executeTakeFirst();
      return row ? toProduct(row) : null;
    },

    async findByIdOrSlug(key) {
      const [row] = await byIdOrSlug(db, key, key, key);
      return row ? toProduct(row) : null;
    },

    async findById(id) {
      const [row] = await byId(db, id);
      return row ? toProduct(row) : null;
    },

    async create(p) {
      await rejectingConflicts(() =>
        db
          .insertInto("products")
          .values({
            id: p.id,
            name: p.name,
            slug: p.slug,
            description: p.description,
            price_cents: p.price,
            compare_at_price_cents: p.compareAtPrice,
            sku: p.sku,
            featured_image: p.featuredImage,
            images: p.images,
            heat_level: p.heatLevel,
            inventory: p.inventory,
            is_active: p.isActive,
            is_featured: p.isFeatured,
            created_at: p.createdAt,
            updated_at: p.updatedAt,
          })
          .execute(),
      );
    },

    async update(id, c, expectedInventory) {
      const row = await rejectingConflicts(() =>
        db
          .updateTable("products")
          .set({
            name: c.name,
            slug: c.slug,
            description: c.description,
            price_cents: c.price,
            compare_at_price_cents: c.compareAtPrice,
            sku: c.sku,
            featured_image: c.featuredImage,
            images: c.images,
            heat_level: c.heatLevel,
            inventory: c.inventory,
            is_active: c.isActive,
            is_featured: c.isFeatured,
            updated_at: c.updatedAt,
          })
          .where("id", "=", id)
          .$if(expectedInventory !== undefined, (qb) => qb.where("inventory", "=", expectedInventory!))
          .returning(PRODUCT_ROW)
          .executeTakeFirst(),
      );
      return row ? toProduct(row) : null;
    },

    async adjustInventory(id, delta, at) {
      // One statement: a concurrent change of the row is waited for, and the bounds judged on what it
      // left (adjustmentFits: never below zero, never added past MAX_INVENTORY).
      const fits = delta < 0 ? sql<boolean>`inventory + ${delta}::int >= 0` : sql<boolean>`inventory::bigint + ${delta}::bigint <= ${MAX_INVENTORY}`;
      const row = await db
        .updateTable("products")
        .set({ inventory: sql<number>`inventory + ${delta}::int`, updated_at: at })
        .where("id", "=", id)
        .where(fits)
        .returning(PRODUCT_ROW)
        .executeTakeFirst();
      return row ? toProduct(row) : null;
    },

    async takeStock(lines, at) {
      const taken = new Set(
        (
          await takeStock(
            db,
            lines.map((l) => l.productId),
            lines.map((l) => l.quantity),
            at,
          )
        ).map((r) => r.id),
      );
      const short = lines.filter((l) => !taken.has(l.productId));
      if (short.length === 0) return [];
      const current = new Map(
        (
          await stockOf(
            db,
            short.map((l) => l.productId),
          )
        ).map((p) => [p.id, p]),
      );
      return short.map((l) => {
        const product = current.get(l.productId);
        return {
          productId: l.productId,
          productName: product?.name ?? "",
          requested: l.quantity,
          available: product?.is_active ? product.inventory : 0,
          onSale: product?.is_active ?? false,
        };
      });
    },

    async returnStock(lines, at) {
      if (lines.length > 0)
        await returnStock(
          db,
          lines.map((l) => l.productId),
          lines.map((l) => l.quantity),
          at,
        );
    },
  };
}

/** One page of the matching products in the given order, with the count of all of them. */
async function pageOf(matching: SelectQueryBuilder<Database, "products", object>, request: PageRequest, sort: ProductSort) {
  const offset = offsetOf(request);
  let page = matching
    .select(PRODUCT_ROW)
    .select((eb) => eb.fn.countAll<string>().over().as("total"))
    .limit(request.limit)
    .offset(offset);
  for (const [column, direction] of orderings[sort]) page = page.orderBy(column, direction);
  const rows = await page.execute();
  const total = await totalOf(rows, offset, () => matching.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow());
  return { items: rows.map(toProduct), total };
}

const conflictingField: Record<string, "sku" | "slug"> = { products_sku_key: "sku", products_slug_key: "slug" };

async function rejectingConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const field = conflictingField[violatedUniqueConstraint(error) ?? ""];
    if (field) throw new DomainError("product.conflict", `A product with this ${field} already exists`, { field });
    throw error;
  }
}
