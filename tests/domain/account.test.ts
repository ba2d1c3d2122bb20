import { describe, expect, test } from "bun:test";
import { accountOf, countsAsSpent, demotesLastAdmin, matchesAccountFilter, mayChangeRole } from "../../src/domain/account.ts";
import { ORDER_STATUSES, PAYMENT_STATUSES } from "../../src/domain/order.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import { USER_ROLES, type UserRole } from "../../src/domain/user.ts";
import { aUser } from "../support/builders.ts";

/** An actor of the role with every permission there is: only the role decides. */
const anyone = (role: UserRole): Actor => ({ userId: "u1", role, permissions: new Set(DEFAULT_ROLE_PERMISSIONS.ADMIN) });
const PRIVILEGED = ["ADMIN", "DEVELOPER"] as const;

describe("mayChangeRole (decisions §12)", () => {
  test("to or from ADMIN or DEVELOPER: ADMIN, DEVELOPER and the system only, whatever the others were granted", () => {
    for (const from of USER_ROLES) {
      for (const to of USER_ROLES) {
        const touchesPrivilege = PRIVILEGED.some((role) => role === from || role === to);
        for (const actorRole of USER_ROLES) {
          const expected = !touchesPrivilege || actorRole === "ADMIN" || actorRole === "DEVELOPER";
          expect({ actorRole, from, to, allowed: mayChangeRole(anyone(actorRole), from, to) }).toEqual({ actorRole, from, to, allowed: expected });
        }
        expect(mayChangeRole(SYSTEM_ACTOR, from, to)).toBe(true);
      }
    }
  });

  test("STAFF moves accounts between the other roles", () => {
    expect(mayChangeRole(anyone("STAFF"), "CUSTOMER", "WHOLESALE")).toBe(true);
    expect(mayChangeRole(anyone("STAFF"), "CUSTOMER", "STAFF")).toBe(true);
    expect(mayChangeRole(anyone("STAFF"), "CUSTOMER", "ADMIN")).toBe(false);
    expect(mayChangeRole(anyone("STAFF"), "DEVELOPER", "CUSTOMER")).toBe(false);
  });
});

describe("demotesLastAdmin", () => {
  const admin = aUser({ role: "ADMIN" });
  const other = aUser({ role: "ADMIN" });

  test("an ADMIN leaving the role when no other ADMIN is left", () => {
    expect(demotesLastAdmin(admin, "DEVELOPER", [admin.id])).toBe(true);
    expect(demotesLastAdmin(admin, "CUSTOMER", [admin.id])).toBe(true);
    expect(demotesLastAdmin(admin, "CUSTOMER", [admin.id, other.id])).toBe(false);
    expect(demotesLastAdmin(admin, "ADMIN", [admin.id])).toBe(false);
    expect(demotesLastAdmin(aUser({ role: "DEVELOPER" }), "CUSTOMER", [admin.id])).toBe(false);
  });
});

describe("countsAsSpent", () => {
  test("paid and not ended: a paid order cancelled or refunded is money going back", () => {
    const counted = ORDER_STATUSES.flatMap((status) => PAYMENT_STATUSES.map((paymentStatus) => ({ status, paymentStatus }))).filter(countsAsSpent);
    expect(counted.map((o) => `${o.status}/${o.paymentStatus}`)).toEqual([
      "PENDING/PAID",
      "CONFIRMED/PAID",
      "PROCESSING/PAID",
      "SHIPPED/PAID",
      "DELIVERED/PAID",
    ]);
  });
});

describe("accounts as staff see them", () => {
  test("accountOf keeps whether there is a password, never the hash", () => {
    const user = aUser({ passwordHash: "$2b$12$secret" });
    const account = accountOf(user);
    expect(JSON.stringify(account)).not.toContain("secret");
    expect(account).not.toHaveProperty("passwordHash");
    expect(account.hasPassword).toBe(true);
    expect(accountOf(aUser({ passwordHash: null })).hasPassword).toBe(false);
  });

  test("q matches a part of the e-mail or the name in any case; role matches exactly; together both must", () => {
    const ada = aUser({ email: "ada@analytical.example", name: "Ada Lovelace", role: "STAFF" });
    expect(matchesAccountFilter(ada, { q: "LOVE" })).toBe(true);
    expect(matchesAccountFilter(ada, { q: "analytical" })).toBe(true);
    expect(matchesAccountFilter(ada, { q: "grace" })).toBe(false);
    expect(matchesAccountFilter({ ...ada, name: null }, { q: "love" })).toBe(false);
    expect(matchesAccountFilter(ada, { role: "STAFF" })).toBe(true);
    expect(matchesAccountFilter(ada, { role: "ADMIN" })).toBe(false);
    expect(matchesAccountFilter(ada, { q: "ada", role: "STAFF" })).toBe(true);
    expect(matchesAccountFilter(ada, { q: "ada", role: "CUSTOMER" })).toBe(false);
    expect(matchesAccountFilter(ada, {})).toBe(true);
  });
});
