import { beforeEach, describe, expect, test } from "bun:test";
import type { Product } from "../../src/domain/product.ts";
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

async function stock(...products: Product[]) {
  for (const p of products) await t.deps.repos.products.create(p);
}

describe("GET /api/admin/products (products:read)", () => {
  const names = async (query: string) => {
    const res = await t.call("GET", `/api/admin/products${query}`, { headers: staff.headers });
    expect(res.status).toBe(200);
    return (res.body.data as { name: string }[]).map((p) => p.name);
  };

  beforeEach(() =>
    stock(
      aProduct({ name: "Reaper Low", sku: "SF-RPR-1", inventory: 5, createdAt: new Date("2026-01-06") }),
      aProduct({ name: "Reaper Retired Low", sku: "SF-RPR-2", inventory: 0, isActive: false, createdAt: new Date("2026-01-05") }),
      aProduct({ name: "Reaper Retired", sku: "SF-RPR-3", inventory: 40, isActive: false, createdAt: new Date("2026-01-04") }),
      aProduct({ name: "Verde", sku: "SF-VRD-1", inventory: 6, createdAt: new Date("2026-01-03") }),
      aProduct({ name: "Mango Retired Low", sku: "SF-MNG-1", inventory: 1, isActive: false, createdAt: new Date("2026-01-02") }),
    ),
  );

  test("every product, off sale too, newest first, as Products in the envelope with the total", async () => {
    const res = await t.call("GET", "/api/admin/products?limit=2&page=2", { headers: staff.headers });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, error: null, meta: { total: 5, page: 2, limit: 2 } });
    expect(res.body.data.map((p: Product) => p.name)).toEqual(["Reaper Retired", "Verde"]);
    expect(res.body.data[0]).toMatchObject({ sku: "SF-RPR-3", inventory: 40, isActive: false, price: 9.99 });
    expect(await names("")).toEqual(["Reaper Low", "Reaper Retired Low", "Reaper Retired", "Verde", "Mango Retired Low"]);
  });

  test("each filter alone: q (name or SKU, any case), isActive, lowStock (at or under 5 units)", async () => {
    expect(await names("?q=reaper")).toEqual(["Reaper Low", "Reaper Retired Low", "Reaper Retired"]);
    expect(await names("?q=vrd")).toEqual(["Verde"]);
    expect(await names("?isActive=true")).toEqual(["Reaper Low", "Verde"]);
    expect(await names("?isActive=false")).toEqual(["Reaper Retired Low", "Reaper Retired", "Mango Retired Low"]);
    expect(await names("?lowStock=true")).toEqual(["Reaper Low", "Reaper Retired Low", "Mango Retired Low"]);
  });

  test("filters combined keep what each keeps", async () => {
    expect(await names("?q=reaper&isActive=false")).toEqual(["Reaper Retired Low", "Reaper Retired"]);
    expect(await names("?q=reaper&lowStock=true")).toEqual(["Reaper Low", "Reaper Retired Low"]);
    expect(await names("?isActive=false&lowStock=true")).toEqual(["Reaper Retired Low", "Mango Retired Low"]);
    expect(await names("?q=RETIRED&isActive=false&lowStock=true")).toEqual(["Reaper Retired Low", "Mango Retired Low"]);
    const res = await t.call("GET", "/api/admin/products?q=retired&lowStock=true&limit=1", { headers: staff.headers });
    expect([res.body.data.length, res.body.meta.total]).toEqual([1, 2]);
  });

  test.each([
    ["isActive=yes", "isActive"],
    ["lowStock=false", "lowStock"],
    ["lowStock=1", "lowStock"],
    [`q=${"x".repeat(101)}`, "q"],
    ["limit=0", "limit"],
    ["page=0", "page"],
  ])("?%s is 400 naming %s", async (query, field) => {
    const res = await t.call("GET", `/api/admin/products?${query}`, { headers: staff.headers });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null, error: "Invalid request" });
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toEqual([field]);
  });
});

describe("POST /api/admin/products/:id/inventory (products:write)", () => {
  const adjust = (id: string, body: unknown) => t.call("POST", `/api/admin/products/${id}/inventory`, { body, headers: staff.headers });

  test("adds the delta and answers the product as the update left it; the audit entry names the staff member, the reason, before and after", async () => {
    const product = aProduct({ inventory: 3, isActive: false });
    await stock(product);
    const res = await adjust(product.id, { delta: 12, reason: "Delivery" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, error: null, data: { id: product.id, inventory: 15, isActive: false } });
    expect(t.deps.state.products.get(product.id)?.inventory).toBe(15);
    const [entry] = await auditEntries(t.deps.repos.audit, { action: "product.inventory_adjust" });
    expect(entry).toMatchObject({
      userId: staff.id,
      entityType: "product",
      entityId: product.id,
      changes: { delta: 12, reason: "Delivery", before: 3, after: 15 },
    });
  });

  test("taking more than there is: 400 Insufficient inventory naming the product and what is available; nothing changes", async () => {
    const product = aProduct({ name: "Scarce", inventory: 2 });
    await stock(product);
    const res = await adjust(product.id, { delta: -3, reason: "Broken" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      data: null,
      error: "Insufficient inventory",
      details: { productId: product.id, productName: "Scarce", requested: 3, available: 2 },
    });
    expect(t.deps.state.products.get(product.id)?.inventory).toBe(2);
    expect(await auditEntries(t.deps.repos.audit, { action: "product.inventory_adjust" })).toEqual([]);
  });

  test.each([
    [{ delta: 0, reason: "Nothing" }, "delta"],
    [{ delta: 1.5, reason: "Half" }, "delta"],
    [{ delta: "5", reason: "Text" }, "delta"],
    [{ delta: 1_000_001, reason: "Too many" }, "delta"],
    [{ reason: "No delta" }, "delta"],
    [{ delta: 1, reason: "" }, "reason"],
    [{ delta: 1, reason: "x".repeat(201) }, "reason"],
    [{ delta: 1 }, "reason"],
    [{ delta: 1, reason: "Ok", extra: true }, "extra"],
  ])("%j is 400 naming %s, and changes nothing", async (body, field) => {
    const product = aProduct({ inventory: 10 });
    await stock(product);
    const res = await adjust(product.id, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid request");
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toEqual([field]);
    expect(t.deps.state.products.get(product.id)?.inventory).toBe(10);
  });

  test("a reason of exactly 200 characters is taken, counted as characters: 200 chilis (400 UTF-16 units) too, 201 not", async () => {
    const product = aProduct();
    await stock(product);
    expect((await adjust(product.id, { delta: 1, reason: "x".repeat(200) })).status).toBe(200);
    expect((await adjust(product.id, { delta: 1, reason: "🌶".repeat(200) })).status).toBe(200);
    const over = await adjust(product.id, { delta: 1, reason: "🌶".repeat(201) });
    expect([over.status, over.body.details.issues.map((i: { path: string }) => i.path)]).toEqual([400, ["reason"]]);
    expect(t.deps.state.products.get(product.id)?.inventory).toBe(product.inventory + 2);
  });

  test("an unknown product is 404; an id of another shape is 400", async () => {
    const unknown = await adjust("z12345678901234567890123", { delta: 1, reason: "Count" });
    expect([unknown.status, unknown.body.error]).toEqual([404, "Product not found"]);
    const malformed = await adjust("not-an-id", { delta: 1, reason: "Count" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["id"]);
  });
});

describe("the OpenAPI document", () => {
  test("has both routes under Back office with their permission and named answers, the filters typed as booleans", async () => {
    const doc = (await t.call("GET", "/api/openapi.json")).body;
    const list = doc.paths["/api/admin/products"].get;
    const adjust = doc.paths["/api/admin/products/{id}/inventory"].post;
    expect([list.tags, adjust.tags]).toEqual([["Back office"], ["Back office"]]);
    expect(list.summary).toContain("products:read");
    expect(adjust.summary).toContain("products:write");
    expect(list.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ProductPage" });
    expect(adjust.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ProductEnvelope" });
    expect(adjust.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InventoryAdjustment" });
    expect(doc.components.schemas.InventoryAdjustment).toMatchObject({ required: ["delta", "reason"], additionalProperties: false });
    const parameter = (name: string) => list.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(parameter("isActive")).toMatchObject({ type: "boolean" });
    expect(parameter("lowStock")).toMatchObject({ type: "boolean", const: true });
  });
});
