import { describe, expect, test } from "bun:test";
import { exportUsers } from "../../src/application/admin/export-users.ts";
import { LATEST_ORDERS, everyUser, getUser, listUsers } from "../../src/application/admin/list-users.ts";
import { readAuditLog } from "../../src/application/admin/read-audit-log.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import type { AccountSummary } from "../../src/domain/account.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS } from "../../src/domain/permissions.ts";
import type { UserRole } from "../../src/domain/user.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { auditEntries } from "../support/audit.ts";

const as = (role: UserRole): Actor => ({ userId: null, role, permissions: new Set(DEFAULT_ROLE_PERMISSIONS[role]) });
const page = { page: 1, limit: 20 };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

async function people() {
  const deps = createMemoryDeps();
  const accounts = {
    ada: aUser({ email: "ada@example.com", name: "Ada Lovelace", role: "STAFF" }),
    adaCustomer: aUser({ email: "a.lovelace@shop.example", name: "A. L.", role: "CUSTOMER" }),
    grace: aUser({ email: "grace@navy.example", name: "Grace Hopper", role: "CUSTOMER" }),
    linus: aUser({ email: "linus@example.com", name: null, role: "ADMIN" }),
  };
  for (const user of Object.values(accounts)) await deps.repos.users.create(user);
  const emails = (found: { items: AccountSummary[] }) => found.items.map((a) => a.email).sort();
  return { deps, ...accounts, emails };
}

describe("listUsers (GET /api/admin/users)", () => {
  test("each filter alone, and combined", async () => {
    const { deps, emails, ada, adaCustomer, grace, linus } = await people();
    const list = (filter: Parameters<typeof listUsers>[2]) => listUsers(deps, as("STAFF"), filter, page);
    expect(emails(await list({}))).toEqual([ada, adaCustomer, grace, linus].map((u) => u.email).sort());
    expect(emails(await list({ q: "LOVELACE" }))).toEqual([ada.email, adaCustomer.email].sort());
    expect(emails(await list({ q: "navy" }))).toEqual([grace.email]);
    expect(emails(await list({ role: "CUSTOMER" }))).toEqual([adaCustomer.email, grace.email].sort());
    expect(emails(await list({ q: "lovelace", role: "CUSTOMER" }))).toEqual([adaCustomer.email]);
    expect(await list({ q: "lovelace", role: "ADMIN" })).toEqual({ items: [], total: 0 });
  });

  test("needs users:read: a customer is refused, STAFF (by default) reads", async () => {
    const { deps } = await people();
    expect((await domainErrorOf(listUsers(deps, as("CUSTOMER"), {}, page))).code).toBe("forbidden");
    expect((await listUsers(deps, as("STAFF"), {}, page)).total).toBe(4);
  });
});

describe("everyUser (users:list)", () => {
  test("every matching account, batch by batch, for users:read only", async () => {
    const { deps, ada, adaCustomer } = await people();
    const read = async (filter: Parameters<typeof everyUser>[2]) => {
      const seen: string[] = [];
      for await (const batch of await everyUser(deps, as("STAFF"), filter)) seen.push(...batch.map((a) => a.email));
      return seen.sort();
    };
    expect(await read({})).toHaveLength(4);
    expect(await read({ q: "lovelace" })).toEqual([ada.email, adaCustomer.email].sort());
    expect((await domainErrorOf(everyUser(deps, as("CUSTOMER"), {}))).code).toBe("forbidden");
  });
});

describe("getUser (GET /api/admin/users/:id)", () => {
  test("the account with its figures and its latest orders, newest first", async () => {
    const { deps, grace } = await people();
    const sauce = aProduct({ inventory: 100 });
    await deps.repos.products.create(sauce);
    const numbers: string[] = [];
    for (let i = 0; i < LATEST_ORDERS + 2; i++) {
      const line = await addToCart(deps, grace.id, { productId: sauce.id, quantity: 1 }, NO_ORIGIN);
      const placed = await placeOrder(
        deps,
        { ...DEFAULT_ORDER_SETTINGS, maxUnpaidOrders: 100 },
        grace.id,
        { cartItemIds: [line.id], shippingAddress: texas },
        NO_ORIGIN,
      );
      numbers.push(placed.orderNumber);
      deps.clock.advance(1_000);
    }
    const { account, orders } = await getUser(deps, as("STAFF"), grace.id);
    expect(account).toMatchObject({ id: grace.id, email: grace.email, orderCount: LATEST_ORDERS + 2, totalSpent: 0 });
    expect(orders.map((o) => o.orderNumber)).toEqual(numbers.slice(2).reverse());
    expect((await domainErrorOf(getUser(deps, as("STAFF"), "z12345678901234567890123"))).code).toBe("user.not_found");
    expect((await domainErrorOf(getUser(deps, as("WHOLESALE"), grace.id))).code).toBe("forbidden");
  });
});

describe("exportUsers (GET /api/admin/users/export)", () => {
  test("records who exported and with which filters, once, before any row is read; then yields the matching accounts", async () => {
    const { deps, adaCustomer } = await people();
    const admin: Actor = { ...as("ADMIN"), userId: (await deps.repos.users.findByEmail("linus@example.com"))!.id };
    const origin = { ipAddress: "198.51.100.4", userAgent: "curl/8" };
    const started = await exportUsers(deps, admin, { q: "lovelace", role: "CUSTOMER" }, origin);
    const [entry] = await auditEntries(deps.repos.audit, { action: "user.export" });
    expect(entry).toMatchObject({
      userId: admin.userId,
      entityType: "user",
      entityId: null,
      changes: { filters: { q: "lovelace", role: "CUSTOMER" } },
      ...origin,
    });
    expect(entry?.createdAt).toEqual(started.startedAt);
    const rows: AccountSummary[] = [];
    for await (const batch of started.batches) rows.push(...batch);
    expect(rows.map((a) => a.id)).toEqual([adaCustomer.id]);
    expect(await auditEntries(deps.repos.audit, { action: "user.export" })).toHaveLength(1);
  });

  test("needs users:export, which STAFF lacks by default: refused, nothing recorded", async () => {
    const { deps } = await people();
    expect((await domainErrorOf(exportUsers(deps, as("STAFF"), {}, NO_ORIGIN))).code).toBe("forbidden");
    expect(await auditEntries(deps.repos.audit, { action: "user.export" })).toEqual([]);
  });
});

describe("readAuditLog (GET /api/admin/audit)", () => {
  test("an action ending in . is every action it begins; any other is that action only", async () => {
    const { deps, grace } = await people();
    const sauce = aProduct({ inventory: 5 });
    await deps.repos.products.create(sauce);
    const line = await addToCart(deps, grace.id, { productId: sauce.id, quantity: 1 }, NO_ORIGIN);
    await placeOrder(deps, DEFAULT_ORDER_SETTINGS, grace.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
    const actions = async (action: string) => (await readAuditLog(deps, as("ADMIN"), { action }, page)).items.map((e) => e.action);
    expect(await actions("cart.")).toEqual(["cart.add"]);
    expect(await actions("order.create")).toEqual(["order.create"]);
    expect(await actions("order")).toEqual([]);
    const all = await readAuditLog(deps, as("ADMIN"), { userId: grace.id }, page);
    expect(all.items.map((e) => e.action)).toEqual(expect.arrayContaining(["cart.add", "order.create"]));
  });

  test("needs settings:read, which STAFF lacks by default", async () => {
    const { deps } = await people();
    expect((await domainErrorOf(readAuditLog(deps, as("STAFF"), {}, page))).code).toBe("forbidden");
  });
});
