import { type Kysely, sql } from "kysely";

// Frozen: this file describes the schema as it was on 2026-11-22. Change the schema in a new migration.

const ROLES = "('ADMIN','DEVELOPER','STAFF','CUSTOMER','WHOLESALE','FUNDRAISER')";
const ORDER_STATUSES = "('PENDING','CONFIRMED','PROCESSING','SHIPPED','DELIVERED','CANCELLED','REFUNDED')";
const PAYMENT_STATUSES = "('PENDING','PAID','FAILED','REFUNDED')";

export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;

  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique().check(sql`email = lower(btrim(email))`))
    .addColumn("name", "text")
    .addColumn("password_hash", "text")
    .addColumn("role", "text", (c) =>
      c
        .notNull()
        .defaultTo("CUSTOMER")
        .check(sql.raw(`role in ${ROLES}`)),
    )
    .addColumn("image", "text")
    .addColumn("is_email_verified", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("sessions_valid_after", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable("user_identities")
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("provider_account_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint("user_identities_pkey", ["provider", "provider_account_id"])
    .execute();
  await db.schema.createIndex("user_identities_user_id_idx").on("user_identities").column("user_id").execute();

  await db.schema
    .createTable("fundraisers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().unique().references("users.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable("role_permissions")
    .addColumn("role", "text", (c) => c.notNull().check(sql.raw(`role in ${ROLES}`)))
    .addColumn("permission", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("role_permissions_pkey", ["role", "permission"])
    .execute();

  await db.schema
    .createTable("products")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("price_cents", "integer", (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn("compare_at_price_cents", "integer", (c) => c.check(sql`compare_at_price_cents >= 0`))
    .addColumn("sku", "text", (c) => c.notNull().unique())
    .addColumn("featured_image", "text", (c) => c.notNull())
    .addColumn("images", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("heat_level", "smallint", (c) => c.notNull().check(sql`heat_level between 0 and 5`))
    .addColumn("inventory", "integer", (c) => c.notNull().check(sql`inventory >= 0`))
    .addColumn("is_active", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("is_featured", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  // The public catalog only ever lists active products, so the indexes cover just those.
  await db.schema.createIndex("products_active_created_idx").on("products").columns(["created_at desc", "id"]).where(sql.ref("is_active"), "=", true).execute();
  await db.schema.createIndex("products_active_price_idx").on("products").columns(["price_cents", "id"]).where(sql.ref("is_active"), "=", true).execute();
  await db.schema.createIndex("products_active_heat_idx").on("products").columns(["heat_level", "id"]).where(sql.ref("is_active"), "=", true).execute();

  await db.schema
    .createTable("cart_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("product_id", "text", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addColumn("quantity", "integer", (c) => c.notNull().check(sql`quantity between 1 and 99`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint("cart_items_user_product_key", ["user_id", "product_id"])
    .execute();

  await db.schema
    .createTable("orders")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("order_number", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("status", "text", (c) => c.notNull().check(sql.raw(`status in ${ORDER_STATUSES}`)))
    .addColumn("payment_status", "text", (c) => c.notNull().check(sql.raw(`payment_status in ${PAYMENT_STATUSES}`)))
    .addColumn("subtotal_cents", "integer", (c) => c.notNull().check(sql`subtotal_cents >= 0`))
    .addColumn("shipping_cents", "integer", (c) => c.notNull().check(sql`shipping_cents >= 0`))
    .addColumn("tax_cents", "integer", (c) => c.notNull().check(sql`tax_cents >= 0`))
    .addColumn("discount_cents", "integer", (c) => c.notNull().defaultTo(0).check(sql`discount_cents >= 0`))
    .addColumn("total_cents", "integer", (c) => c.notNull().check(sql`total_cents >= 0`))
    .addColumn("shipping_method", "text", (c) => c.notNull())
    .addColumn("shipping_address", "jsonb", (c) => c.notNull())
    .addColumn("billing_address", "jsonb", (c) => c.notNull())
    .addColumn("tracking_number", "text")
    .addColumn("customer_notes", "text")
    .addColumn("stripe_payment_intent_id", "text", (c) => c.unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addCheckConstraint("orders_total_check", sql`total_cents = subtotal_cents + shipping_cents + tax_cents - discount_cents`)
    .execute();
  await db.schema.createIndex("orders_user_created_idx").on("orders").columns(["user_id", "created_at"]).execute();
  // The sweeper looks for unpaid PENDING orders by age.
  await db.schema.createIndex("orders_pending_created_idx").on("orders").column("created_at").where(sql.ref("status"), "=", "PENDING").execute();

  await db.schema
    .createTable("order_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("order_id", "text", (c) => c.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("product_id", "text", (c) => c.notNull().references("products.id"))
    .addColumn("product_name", "text", (c) => c.notNull())
    .addColumn("product_sku", "text", (c) => c.notNull())
    .addColumn("product_image", "text", (c) => c.notNull())
    .addColumn("quantity", "integer", (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn("unit_price_cents", "integer", (c) => c.notNull().check(sql`unit_price_cents >= 0`))
    .addColumn("total_price_cents", "integer", (c) => c.notNull())
    .addCheckConstraint("order_items_total_check", sql`total_price_cents = unit_price_cents * quantity`)
    .execute();
  await db.schema.createIndex("order_items_order_id_idx").on("order_items").column("order_id").execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("entity_type", "text", (c) => c.notNull())
    .addColumn("entity_id", "text")
    .addColumn("changes", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("ip_address", "text")
    .addColumn("user_agent", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex("audit_log_user_created_idx").on("audit_log").columns(["user_id", "created_at"]).execute();
  await db.schema.createIndex("audit_log_entity_idx").on("audit_log").columns(["entity_type", "entity_id"]).execute();

  await db.schema
    .createTable("webhook_events")
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("received_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint("webhook_events_pkey", ["provider", "event_id"])
    .execute();

  await db.schema
    .createTable("mail_outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("text_body", "text", (c) => c.notNull())
    .addColumn("html_body", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending").check(sql`status in ('pending','sent','failed')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("last_error", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("sent_at", "timestamptz")
    .execute();
  await db.schema.createIndex("mail_outbox_due_idx").on("mail_outbox").column("next_attempt_at").where(sql.ref("status"), "=", "pending").execute();

  await db.schema
    .createTable("locations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("address1", "text", (c) => c.notNull())
    .addColumn("address2", "text")
    .addColumn("city", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("postal_code", "text", (c) => c.notNull())
    .addColumn("country", "text", (c) => c.notNull().defaultTo("US"))
    .addColumn("latitude", "double precision", (c) => c.notNull().check(sql`latitude between -90 and 90`))
    .addColumn("longitude", "double precision", (c) => c.notNull().check(sql`longitude between -180 and 180`))
    .addColumn("phone", "text")
    .addColumn("website", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint("locations_name_postal_code_key", ["name", "postal_code"])
    .execute();
  await db.schema.createIndex("locations_state_name_idx").on("locations").columns(["state", "name"]).execute();
  await db.schema.createIndex("locations_lat_lng_idx").on("locations").columns(["latitude", "longitude"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "locations",
    "mail_outbox",
    "webhook_events",
    "audit_log",
    "order_items",
    "orders",
    "cart_items",
    "products",
    "role_permissions",
    "fundraisers",
    "user_identities",
    "users",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
