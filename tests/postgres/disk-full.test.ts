import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// A full disk under the database (SQLSTATE 53100, as PostgreSQL and the embedded database both give
// it for a table that cannot grow) was a 500 on every write, each logged with its stack, line after
// line on the full disk (found by an attack on the embedded default). The disk is played here by a
// trigger that fails as a full disk does.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const diskFull = sql`
  create function pretend_disk_full() returns trigger language plpgsql as $$
  begin
    raise exception 'could not extend file "base/5/16609": No space left on device' using errcode = 'disk_full';
  end $$;
  create trigger disk_full before insert on cart_items for each row execute function pretend_disk_full()`;
const spaceFreed = sql`drop trigger disk_full on cart_items; drop function pretend_disk_full()`;

test("a write the full disk refuses is a 503 with Retry-After, logged once at warn without a stack; reads go on, and writes come back with the space, without a restart", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger("info", (line) => lines.push(JSON.parse(line)));
  const deps = createPgDeps(database.db);
  const t = createTestApp({ ...deps, logger }, { logger });
  const sauce = aProduct({ inventory: 5 });
  await deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  const add = () => t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: shopper.headers });

  await diskFull.execute(database.db);
  const refused = await add();
  expect([refused.status, refused.body, refused.headers.get("retry-after")]).toEqual([
    503,
    { error: "The shop cannot store anything just now; please try again later" },
    "60",
  ]);
  expect(lines.filter((line) => line.level === "error")).toEqual([]);
  expect(lines.filter((line) => line.event === "request.refused")).toEqual([
    expect.objectContaining({ level: "warn", path: "/api/cart", code: "database.full", reason: expect.stringContaining("No space left on device") }),
  ]);
  expect((await t.call("GET", `/api/products/${sauce.id}`)).status).toBe(200);

  await spaceFreed.execute(database.db);
  expect((await add()).status).toBe(200);
});

test("a checkout whose payment intent cannot be stored for want of disk is a 503, the order left whole for housekeeping, not undone as a failure (found by a review)", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger("info", (line) => lines.push(JSON.parse(line)));
  const deps = createPgDeps(database.db);
  const t = createTestApp({ ...deps, logger }, { logger });
  const sauce = aProduct({ inventory: 5 });
  await deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: shopper.headers });
  // The order is made; the disk fills before its intent is stored (an update of the order).
  await sql`
    create function pretend_disk_full() returns trigger language plpgsql as $$
    begin
      raise exception 'could not extend file "base/5/16610": No space left on device' using errcode = 'disk_full';
    end $$;
    create trigger disk_full before update on orders for each row execute function pretend_disk_full()`.execute(database.db);
  try {
    const refused = await t.call("POST", "/api/cart/checkout", {
      body: { shippingAddress: { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" } },
      headers: shopper.headers,
    });
    expect([refused.status, refused.body]).toEqual([503, { error: "The shop cannot store anything just now; please try again later" }]);
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
    expect(lines.map((line) => line.event)).toContain("order.payment_intent_unstored");
    const [order] = (await deps.repos.orders.list({ userId: shopper.id, skip: 0, take: null, sortOrder: "desc" })).orders;
    expect(order).toMatchObject({ status: "PENDING", stripePaymentIntentId: null });
  } finally {
    await sql`drop trigger disk_full on orders; drop function pretend_disk_full()`.execute(database.db);
  }
});
