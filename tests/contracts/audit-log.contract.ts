import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { AuditEntry } from "../../src/domain/audit.ts";
import type { User } from "../../src/domain/user.ts";
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

    test("recorded entries list whole, newest first", async () => {
      const user = await aStoredUser();
      const middle = anEntry({ userId: user.id, action: "auth.login", entityType: "user", entityId: user.id, createdAt: at(20) });
      const oldest = anEntry({ userId: null, action: "product.create", createdAt: at(10) });
      const newest = anEntry({ userId: user.id, action: "product.update", changes: { price: 1299 }, createdAt: at(30) });
      for (const entry of [middle, oldest, newest]) await log().record(entry);
      expect(await log().list({})).toEqual([newest, middle, oldest]);
    });

    test("filters by action", async () => {
      const login = anEntry({ action: "auth.login", createdAt: at(1) });
      const failed = anEntry({ action: "auth.login_failed", createdAt: at(2) });
      const again = anEntry({ action: "auth.login", createdAt: at(3) });
      for (const entry of [login, failed, again]) await log().record(entry);
      expect(await log().list({ action: "auth.login" })).toEqual([again, login]);
      expect(await log().list({ action: "auth.login_failed" })).toEqual([failed]);
      expect(await log().list({ action: "order.create" })).toEqual([]);
    });

    test("filters by entity type, and by entity type and id", async () => {
      const product = createId();
      const create = anEntry({ action: "product.create", entityType: "product", entityId: product, createdAt: at(1) });
      const update = anEntry({ action: "product.update", entityType: "product", entityId: product, createdAt: at(2) });
      const otherProduct = anEntry({ entityType: "product", entityId: createId(), createdAt: at(3) });
      const sameIdOtherType = anEntry({ action: "order.create", entityType: "order", entityId: product, createdAt: at(4) });
      for (const entry of [create, update, otherProduct, sameIdOtherType]) await log().record(entry);
      expect(await log().list({ entityType: "product", entityId: product })).toEqual([update, create]);
      expect(await log().list({ entityType: "product" })).toEqual([otherProduct, update, create]);
      expect(await log().list({ entityType: "order", entityId: product })).toEqual([sameIdOtherType]);
    });

    test("filters by user, and combines filters", async () => {
      const ada = await aStoredUser();
      const bo = await aStoredUser();
      const adaLogin = anEntry({ userId: ada.id, action: "auth.login", createdAt: at(1) });
      const boLogin = anEntry({ userId: bo.id, action: "auth.login", createdAt: at(2) });
      const adaUpdate = anEntry({ userId: ada.id, action: "user.update", createdAt: at(3) });
      const system = anEntry({ userId: null, action: "auth.login", createdAt: at(4) });
      for (const entry of [adaLogin, boLogin, adaUpdate, system]) await log().record(entry);
      expect(await log().list({ userId: ada.id })).toEqual([adaUpdate, adaLogin]);
      expect(await log().list({ userId: bo.id })).toEqual([boLogin]);
      expect(await log().list({ userId: ada.id, action: "auth.login" })).toEqual([adaLogin]);
      expect(await log().list({ action: "auth.login" })).toEqual([system, boLogin, adaLogin]);
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
      const listed = await log().list({});
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
      expect(await log().list({})).toEqual([fromBrowser, fromIpv4, fromCli]);
    });
  });
}
