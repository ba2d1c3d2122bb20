// The floor for GET /api/cart: a bare Bun.serve that verifies the same JWT and runs the same SQL
// with pg, with no framework, use case or adapter in between. Started by bench/cart.ts.
import { jwtVerify } from "jose";
import { Pool } from "pg";

const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(process.env.AUTH_SECRET ?? ""), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });

// Copied from what Kysely logs for CartRepository.lines (src/adapters/db/cart-repository.ts).
const CART_SQL = `select "cart_items"."id", "cart_items"."user_id", "cart_items"."product_id", "cart_items"."quantity", "cart_items"."created_at", "cart_items"."updated_at", "products"."name", "products"."slug", "products"."price_cents", "products"."compare_at_price_cents", "products"."featured_image", "products"."heat_level", "products"."inventory", "products"."is_active" from "cart_items" inner join "products" on "products"."id" = "cart_items"."product_id" where "cart_items"."user_id" = $1 order by "cart_items"."created_at", "cart_items"."id"`;

const server = Bun.serve({
  port: Number(process.env.PORT),
  async fetch(request) {
    const cookie = request.headers.get("cookie") ?? "";
    const token = /storefront\.session-token=([^;]+)/.exec(cookie)?.[1];
    if (!token) return Response.json({ error: "Unauthorized - authentication required" }, { status: 401 });
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] });
    // Named, so PostgreSQL plans it once per connection: the app's driver does the same.
    const { rows } = await pool.query({ name: "cart", text: CART_SQL, values: [payload.sub] });
    let totalQuantity = 0;
    let subtotal = 0;
    const items = rows.map((r) => {
      totalQuantity += r.quantity;
      subtotal += r.price_cents * r.quantity;
      return {
        id: r.id,
        productId: r.product_id,
        quantity: r.quantity,
        product: {
          id: r.product_id,
          name: r.name,
          slug: r.slug,
          price: r.price_cents / 100,
          compareAtPrice: r.compare_at_price_cents === null ? null : r.compare_at_price_cents / 100,
          featuredImage: r.featured_image,
          heatLevel: r.heat_level,
          inventory: r.inventory,
        },
      };
    });
    return Response.json({ items, itemCount: items.length, totalQuantity, subtotal: subtotal / 100 });
  },
});
console.log(JSON.stringify({ event: "baseline.started", port: server.port }));
