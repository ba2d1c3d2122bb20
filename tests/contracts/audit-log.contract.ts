import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { AuditAction, AuditEntry } from "../../src/domain/audit.ts";
import type { AuditQuery } from "../../src/application/ports/audit.ts";
import type { User } from "../../src/domain/user.ts";
import { auditEntries } from "../support/audit.ts";
import { aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const createId = cuid2Ids.next;

const start = new Date("2026-11-22T12:00:00Z").getTime();
const at = (seconds: number) => new Date(start + seconds * 1000);

function anEntry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: createId(),
    userId: null,
    action: "product.update",
    entityType: "product",
    entityId: createId(),
    changes: {},
    ipAddress: null,
    userAgent: null,
    createdAt: at(0),
    ...overrides,
  };
}

export function auditLogContract(target: () => ContractTarget) {
  describe("AuditLog", () => {
    const log = () => target().repos.audit;

    /** A stored user, since audit_log.user_id references users on PostgreSQL. */
    async function aStoredUser(): Promise<User> {
      const user = aUser();
      await target().repos.users.create(user);
      return user;
    }

    test("recorded entries are read whole, newest first", async () => {
      const user = await aStoredUser();
      const middle = anEntry({ userId: user.id, action: "auth.login", entityType: "user", entityId: user.id, createdAt: at(20) });
      const oldest = anEntry({ userId: null, action: "product.create", createdAt: at(10) });
      const newest = anEntry({ userId: user.id, action: "product.update", changes: { price: 1299 }, createdAt: at(30) });
      for (const entry of [middle, oldest, newest]) await log().record(entry);
      expect(await auditEntries(log())).toEqual([newest, middle, oldest]);
    });

    test("filters by action", async () => {
      const login = anEntry({ action: "auth.login", createdAt: at(1) });
      const failed = anEntry({ action: "auth.login_failed", createdAt: at(2) });
      const again = anEntry({ action: "auth.login", createdAt: at(3) });
      for (const entry of [login, failed, again]) await log().record(entry);
      expect(await auditEntries(log(), { action: "auth.login" })).toEqual([again, login]);
      expect(await auditEntries(log(), { action: "auth.login_failed" })).toEqual([failed]);
      expect(await auditEntries(log(), { action: "order.create" })).toEqual([]);
    });

    test("filters by entity type, and by entity type and id", async () => {
      const product = createId();
      const create = anEntry({ action: "product.create", entityType: "product", entityId: product, createdAt: at(1) });
      const update = anEntry({ action: "product.update", entityType: "product", entityId: product, createdAt: at(2) });
      const otherProduct = anEntry({ entityType: "product", entityId: createId(), createdAt: at(3) });
      const sameIdOtherType = anEntry({ action: "order.create", entityType: "order", entityId: product, createdAt: at(4) });
      for (const entry of [create, update, otherProduct, sameIdOtherType]) await log().record(entry);
      expect(await auditEntries(log(), { entityType: "product", entityId: product })).toEqual([update, create]);
      expect(await auditEntries(log(), { entityType: "product" })).toEqual([otherProduct, update, create]);
      expect(await auditEntries(log(), { entityType: "order", entityId: product })).toEqual([sameIdOtherType]);
    });

    test("filters by user, and combines filters", async () => {
      const ada = await aStoredUser();
      const bo = await aStoredUser();
      const adaLogin = anEntry({ userId: ada.id, action: "auth.login", createdAt: at(1) });
      const boLogin = anEntry({ userId: bo.id, action: "auth.login", createdAt: at(2) });
      const adaUpdate = anEntry({ userId: ada.id, action: "user.update", createdAt: at(3) });
      const system = anEntry({ userId: null, action: "auth.login", createdAt: at(4) });
      for (const entry of [adaLogin, boLogin, adaUpdate, system]) await log().record(entry);
      expect(await auditEntries(log(), { userId: ada.id })).toEqual([adaUpdate, adaLogin]);
      expect(await auditEntries(log(), { userId: bo.id })).toEqual([boLogin]);
      expect(await auditEntries(log(), { userId: ada.id, action: "auth.login" })).toEqual([adaLogin]);
      expect(await auditEntries(log(), { action: "auth.login" })).toEqual([system, boLogin, adaLogin]);
    });

    test("changes round-trip as JSON: nested objects, arrays, numbers, strings, booleans and nulls", async () => {
      const changes = {
        price: { from: 999, to: 1299 },
        ratio: 0.125,
        negative: -42,
        name: "Ghost Pepper Fury — “extra” hot 🌶️",
        tags: ["smoky", "sweet", 3],
        flags: { isActive: true, isFeatured: false },
        compareAtPrice: null,
        nested: { deeper: { deepest: ["a", { b: "c" }] } },
      };
      const entry = anEntry({ changes, createdAt: at(5) });
      const empty = anEntry({ changes: {}, createdAt: at(4) });
      await log().record(entry);
      await log().record(empty);
      const listed = await auditEntries(log());
      expect(listed).toEqual([entry, empty]);
      expect(listed[0]?.changes).toEqual(changes);
      expect(listed[1]?.changes).toEqual({});
    });

    test("the request origin round-trips, and may be absent", async () => {
      const user = await aStoredUser();
      const fromBrowser = anEntry({
        userId: user.id,
        ipAddress: "2001:db8::1",
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/130.0",
        createdAt: at(2),
      });
      const fromIpv4 = anEntry({ userId: user.id, ipAddress: "203.0.113.7", userAgent: null, createdAt: at(1) });
      const fromCli = anEntry({ userId: null, ipAddress: null, userAgent: null, createdAt: at(0) });
      for (const entry of [fromCli, fromIpv4, fromBrowser]) await log().record(entry);
      expect(await auditEntries(log())).toEqual([fromBrowser, fromIpv4, fromCli]);
    });
  });

  describe("AuditLog: the back office's search (listPage)", () => {
    const log = () => target().repos.audit;
    const page = { page: 1, limit: 50 };
    const ids = async (query: AuditQuery) => (await log().listPage(query, page)).items.map((e) => e.id);

    /** A small log: two users' and the shop's own entries over four days, newest last. */
    async function aLog() {
      const ada = aUser();
      const bo = aUser();
      for (const user of [ada, bo]) await target().repos.users.create(user);
      const order = createId();
      const entries = [
        anEntry({ userId: ada.id, action: "order.create", entityType: "order", entityId: order, createdAt: at(0) }),
        anEntry({ userId: null, action: "payment.succeeded", entityType: "order", entityId: order, createdAt: at(86_400) }),
        anEntry({ userId: bo.id, action: "order.status_update", entityType: "order", entityId: order, createdAt: at(2 * 86_400) }),
        anEntry({ userId: bo.id, action: "user.role_change", entityType: "user", entityId: ada.id, createdAt: at(2 * 86_400) }),
        anEntry({ userId: null, action: "webhook.stripe", entityType: "webhook", entityId: null, createdAt: at(3 * 86_400) }),
        anEntry({ userId: ada.id, action: "orderly.thing" as AuditAction, entityType: "order", entityId: createId(), createdAt: at(3 * 86_400 + 1) }),
      ];
      for (const entry of entries) await log().record(entry);
      const [create, paid, moved, roleChange, webhook, lookalike] = entries.map((e) => e.id) as [string, string, string, string, string, string];
      return { ada, bo, order, entries, create, paid, moved, roleChange, webhook, lookalike };
    }

    test("with no filter, every entry whole, newest first and then by id", async () => {
      const l = await aLog();
      const tie = [l.moved, l.roleChange].sort().reverse();
      const newestFirst = [l.lookalike, l.webhook, ...tie, l.paid, l.create];
      expect(await ids({})).toEqual(newestFirst);
      expect((await log().listPage({}, page)).items).toEqual(newestFirst.map((id) => l.entries.find((entry) => entry.id === id)!));
    });

    test("each filter alone: user, exact action, action prefix (its dot included), entity type, entity id, from (inclusive), to (exclusive)", async () => {
      const l = await aLog();
      expect((await ids({ userId: l.ada.id })).sort()).toEqual([l.create, l.lookalike].sort());
      expect(await ids({ action: "order.create" })).toEqual([l.create]);
      expect(await ids({ action: "order." })).toEqual([]);
      expect(await ids({ actionPrefix: "order." })).toEqual([l.moved, l.create]);
      expect(await ids({ actionPrefix: "webhook." })).toEqual([l.webhook]);
      expect(await ids({ entityType: "user" })).toEqual([l.roleChange]);
      expect(await ids({ entityId: l.order })).toEqual([l.moved, l.paid, l.create]);
      expect(await ids({ from: at(3 * 86_400) })).toEqual([l.lookalike, l.webhook]);
      expect(await ids({ to: at(86_400) })).toEqual([l.create]);
    });

    test("filters combined: every one must hold", async () => {
      const l = await aLog();
      expect(await ids({ userId: l.bo.id, actionPrefix: "order." })).toEqual([l.moved]);
      expect(await ids({ entityType: "order", entityId: l.order, from: at(86_400), to: at(2 * 86_400) })).toEqual([l.paid]);
      expect(await ids({ actionPrefix: "order", entityType: "order", to: at(3 * 86_400 + 1) })).toEqual([l.moved, l.create]);
      expect(await ids({ userId: l.ada.id, action: "user.role_change" })).toEqual([]);
    });

    test("a prefix's % and _ are taken literally", async () => {
      await aLog();
      expect(await ids({ actionPrefix: "%" })).toEqual([]);
      expect(await ids({ actionPrefix: "order_" })).toEqual([]);
    });

    test("pages: limit and page pick the slice, total counts every match", async () => {
      const l = await aLog();
      expect(await log().listPage({ entityId: l.order }, { page: 1, limit: 2 })).toMatchObject({ total: 3, items: [{ id: l.moved }, { id: l.paid }] });
      expect(await log().listPage({ entityId: l.order }, { page: 2, limit: 2 })).toMatchObject({ total: 3, items: [{ id: l.create }] });
      expect(await log().listPage({ entityId: l.order }, { page: 3, limit: 2 })).toEqual({ total: 3, items: [] });
    });
  });
}
