import { beforeEach, describe, expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

let t: TestApp;
let staff: Awaited<ReturnType<typeof signedInAs>>;
beforeEach(async () => {
  t = createTestApp();
  staff = await signedInAs(t, "STAFF");
});

const sauce = {
  name: "Mango Habanero Blaze",
  sku: "MHB-001",
  price: 12.99,
  featuredImage: "https://img.example.com/mhb.jpg",
  heatLevel: 4,
  inventory: 25,
};

describe("product writes (products:write)", () => {
  test("POST creates a product: 201, slug from the name, cents kept exactly, audit entry", async () => {
    const res = await t.call("POST", "/api/products", { body: { ...sauce, compareAtPrice: 15.5 }, headers: staff.headers });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: "Mango Habanero Blaze",
      slug: "mango-habanero-blaze",
      price: 12.99,
      compareAtPrice: 15.5,
      images: ["https://img.example.com/mhb.jpg"],
      isActive: true,
    });
    expect(t.deps.state.products.get(res.body.data.id)?.price).toBe(1299);
    const [audit] = await auditEntries(t.deps.repos.audit, { action: "product.create" });
    expect(audit).toMatchObject({ userId: staff.id, entityId: res.body.data.id });
    expect((await t.call("GET", "/api/products/mango-habanero-blaze")).status).toBe(200);
  });

  test("a duplicate sku or slug is 409 naming the field", async () => {
    await t.call("POST", "/api/products", { body: sauce, headers: staff.headers });
    const sameSku = await t.call("POST", "/api/products", { body: { ...sauce, name: "Other" }, headers: staff.headers });
    expect(sameSku.status).toBe(409);
    expect(sameSku.body).toMatchObject({ success: false, error: "A product with this sku already exists", details: { field: "sku" } });
    const sameSlug = await t.call("POST", "/api/products", { body: { ...sauce, sku: "OTHER" }, headers: staff.headers });
    expect(sameSlug.body.details).toEqual({ field: "slug" });
  });

  test("a SKU with an invisible character or a line break is 400, and a look-alike is the SKU it looks like: it would pass for another's, and split its CSV row (found by an attack)", async () => {
    for (const sku of ["HAB\u200b-1", "HAB\u00ad-1", "HAB\u202e-1", "HAB\n1", "HAB 1\tX", "HAB\u2028-1"]) {
      const res = await t.call("POST", "/api/products", { body: { ...sauce, sku }, headers: staff.headers });
      expect([res.status, res.body.details?.issues]).toEqual([400, [{ path: "sku", message: "must be printable characters on one line" }]]);
    }
    const spaced = await t.call("POST", "/api/products", { body: { ...sauce, sku: "HAB\u00a01-X" }, headers: staff.headers });
    expect([spaced.status, spaced.body.data?.sku]).toEqual([201, "HAB 1-X"]);
    // A mark that NFKC makes a space and a mark of is trimmed after it.
    const marked = await t.call("POST", "/api/products", { body: { ...sauce, name: "Marked", sku: "\u00b4MK-1" }, headers: staff.headers });
    expect([marked.status, marked.body.data?.sku]).toEqual([201, "\u0301MK-1"]);
    // Fullwidth is the same SKU: a look-alike of one there already is refused as taken.
    const fullwidth = await t.call("POST", "/api/products", { body: { ...sauce, name: "Other", sku: "ＨＡＢ 1-Ｘ" }, headers: staff.headers });
    expect([fullwidth.status, fullwidth.body.error]).toEqual([409, "A product with this sku already exists"]);
  });

  test.each([
    [{ ...sauce, price: 12.999 }, "price"],
    // A fraction of a cent too small to see was once stored as a free product (found by an attack).
    [{ ...sauce, price: 0.000000001 }, "price"],
    [{ ...sauce, compareAtPrice: 5e-324 }, "compareAtPrice"],
    // A name is one line: a line break split the line report:sales printed it on (found by an attack).
    [{ ...sauce, name: "Ghost\rPepper" }, "name"],
    [{ ...sauce, name: "Ghost\nPepper" }, "name"],
    [{ ...sauce, heatLevel: 6 }, "heatLevel"],
    [{ ...sauce, inventory: -1 }, "inventory"],
    [{ ...sauce, slug: "Not A Slug" }, "slug"],
    [{ ...sauce, secret: true }, "secret"],
    [{ ...sauce, slug: "abcdefghijklmnopqrstuvwx" }, "slug"],
    [{ ...sauce, name: "🌶️🔥" }, "slug"],
    [{ ...sauce, description: "nul\u0000byte" }, "description"],
  ])("invalid product %j is 400 naming %s", async (body, field) => {
    const res = await t.call("POST", "/api/products", { body, headers: staff.headers });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid request");
    expect(res.body.details.issues.map((i: any) => i.path)).toContain(field);
    expect(t.deps.state.products.size).toBe(0);
  });

  test("PUT changes only the given fields; DELETE takes the product off sale but keeps it", async () => {
    const created = (await t.call("POST", "/api/products", { body: sauce, headers: staff.headers })).body.data;
    t.deps.clock.advance(1_000);
    const put = await t.call("PUT", `/api/products/${created.id}`, { body: { price: 10, inventory: 3, expectedInventory: 25 }, headers: staff.headers });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ price: 10, inventory: 3, name: sauce.name, heatLevel: 4 });

    t.deps.clock.advance(1_000);
    const del = await t.call("DELETE", `/api/products/${created.id}`, { headers: staff.headers });
    expect(del.status).toBe(200);
    expect(del.body.data.isActive).toBe(false);
    expect((await t.call("GET", `/api/products/${created.id}`)).status).toBe(404);
    expect(t.deps.state.products.has(created.id)).toBe(true);
    expect((await auditEntries(t.deps.repos.audit, { entityId: created.id })).map((a) => a.action)).toEqual([
      "product.delete",
      "product.update",
      "product.create",
    ]);
  });

  test("PUT/DELETE of an unknown id is 404; a malformed id is 400", async () => {
    expect((await t.call("PUT", "/api/products/z12345678901234567890123", { body: { price: 1 }, headers: staff.headers })).status).toBe(404);
    expect((await t.call("DELETE", "/api/products/not-a-cuid", { headers: staff.headers })).status).toBe(400);
  });
});

describe("PUT /api/products/:id with inventory needs expectedInventory (decisions §12)", () => {
  const put = (id: string, body: unknown) => t.call("PUT", `/api/products/${id}`, { body, headers: staff.headers });

  test("expectedInventory equal to the stored value sets the inventory", async () => {
    const product = aProduct({ inventory: 5 });
    await t.deps.repos.products.create(product);
    const res = await put(product.id, { inventory: 20, expectedInventory: 5 });
    expect(res.status).toBe(200);
    expect(res.body.data.inventory).toBe(20);
  });

  test("another expectedInventory (a sale came first) is 409 naming the current value, and nothing changes", async () => {
    const product = aProduct({ inventory: 4 });
    await t.deps.repos.products.create(product);
    const res = await put(product.id, { inventory: 20, expectedInventory: 5, price: 1 });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      data: null,
      error: "Inventory has changed: it is 4 now, not 5",
      details: { productId: product.id, expectedInventory: 5, inventory: 4 },
    });
    expect(t.deps.state.products.get(product.id)).toEqual(product);
  });

  test("inventory alone, or expectedInventory alone, is 400 naming expectedInventory", async () => {
    const product = aProduct({ inventory: 5 });
    await t.deps.repos.products.create(product);
    for (const body of [{ inventory: 20 }, { expectedInventory: 5 }]) {
      const res = await put(product.id, body);
      expect(res.status).toBe(400);
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["expectedInventory"]);
    }
    expect(t.deps.state.products.get(product.id)?.inventory).toBe(5);
  });

  test("stock past 1,000,000 (an ended order gave units back to a full shelf) can be named and set back, or taken from (found by an attack)", async () => {
    const product = aProduct({ inventory: 1_000_005 });
    await t.deps.repos.products.create(product);
    const taken = await t.call("POST", `/api/admin/products/${product.id}/inventory`, { body: { delta: -3, reason: "Count" }, headers: staff.headers });
    expect([taken.status, taken.body.data?.inventory]).toEqual([200, 1_000_002]);
    const set = await put(product.id, { inventory: 68, expectedInventory: 1_000_002 });
    expect([set.status, set.body.data?.inventory]).toEqual([200, 68]);
    expect((await put(product.id, { inventory: 1_000_001, expectedInventory: 68 })).status).toBe(400);
  });

  test("the OpenAPI document says so, and lists the 409", async () => {
    const put = (await t.call("GET", "/api/openapi.json")).body.paths["/api/products/{id}"].put;
    expect(put.description).toContain("`expectedInventory`");
    expect(Object.keys(put.responses)).toContain("409");
  });
});
