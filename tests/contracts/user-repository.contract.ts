import { describe, expect, test } from "bun:test";
import type { User } from "../../src/domain/user.ts";
import { aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import type { ContractTarget } from "./targets.ts";

const later = new Date("2026-03-01T09:30:00Z");

export function userRepositoryContract(target: () => ContractTarget) {
  describe("UserRepository", () => {
    const repo = () => target().repos.users;

    test("a created user reads back whole, by id and by a trimmed, case-insensitive e-mail", async () => {
      const user = aUser({
        email: "user-1@example.com",
        name: "Ada Lovelace",
        role: "STAFF",
        image: "https://images.example.com/ada.png",
        isEmailVerified: true,
      });
      await repo().create(user);
      expect(await repo().findById(user.id)).toEqual(user);
      expect(await repo().findByEmail("  USER-1@Example.com ")).toEqual(user);
      expect(await repo().findByEmail("user-1@example.com")).toEqual(user);
      expect(await repo().findById("no-such-user")).toBeNull();
      expect(await repo().findByEmail("nobody@example.com")).toBeNull();
    });

    test("a user created with nullable fields empty reads back the same", async () => {
      const user = aUser({ name: null, passwordHash: null, image: null });
      await repo().create(user);
      expect(await repo().findById(user.id)).toEqual(user);
    });

    test("create stores the e-mail normalized", async () => {
      const user = aUser({ email: "  Grace.Hopper@Example.COM " });
      await repo().create(user);
      expect(await repo().findById(user.id)).toEqual({ ...user, email: "grace.hopper@example.com" });
    });

    test("create with an e-mail already in use, in another case, is auth.email_taken", async () => {
      const first = aUser({ email: "ada@example.com" });
      await repo().create(first);
      const second = aUser({ email: "ADA@Example.com" });
      const error = await domainErrorOf(repo().create(second));
      expect(error.code).toBe("auth.email_taken");
      expect(await repo().findById(second.id)).toBeNull();
      expect(await repo().findByEmail("ada@example.com")).toEqual(first);
    });

    test("update applies the given fields, nulls included, leaves the rest and returns the user", async () => {
      const user = aUser({ name: "Ada", image: "https://images.example.com/ada.png" });
      const other = aUser();
      await repo().create(user);
      await repo().create(other);
      const updated = await repo().update(user.id, {
        role: "ADMIN",
        passwordHash: null,
        isEmailVerified: true,
        name: undefined,
        image: undefined,
        updatedAt: later,
      });
      const expected: User = { ...user, role: "ADMIN", passwordHash: null, isEmailVerified: true, updatedAt: later };
      expect(updated).toEqual(expected);
      expect(updated?.name).toBe("Ada");
      expect(updated?.image).toBe("https://images.example.com/ada.png");
      expect(await repo().findById(user.id)).toEqual(expected);
      expect(await repo().findById(other.id)).toEqual(other);

      const renamed = await repo().update(user.id, { name: null, image: null, updatedAt: later });
      expect(renamed).toEqual({ ...expected, name: null, image: null });
      expect(await repo().findByEmail(user.email)).toEqual({ ...expected, name: null, image: null });
    });

    test("lock, inside a transaction, returns the account as it is; an unknown one is null", async () => {
      const user = aUser();
      await repo().create(user);
      await target().uow.transaction(async (tx) => {
        expect(await tx.users.lock(user.id)).toEqual(user);
        expect(await tx.users.lock("no-such-user")).toBeNull();
      });
    });

    test("holdForCheckout, inside a transaction, says whether the account exists", async () => {
      const user = aUser();
      await repo().create(user);
      await target().uow.transaction(async (tx) => {
        expect(await tx.users.holdForCheckout(user.id)).toBe(true);
        expect(await tx.users.holdForCheckout("no-such-user")).toBe(false);
      });
    });

    test("update of an unknown user is null", async () => {
      await repo().create(aUser());
      expect(await repo().update("no-such-user", { role: "ADMIN", updatedAt: later })).toBeNull();
      expect(await repo().findById("no-such-user")).toBeNull();
    });

    test("a linked identity finds its user; a second link of the same account is ignored", async () => {
      const first = aUser();
      const second = aUser();
      await repo().create(first);
      await repo().create(second);

      await repo().linkIdentity("github", "12345", first.id);
      expect(await repo().findByIdentity("github", "12345")).toEqual(first);

      await repo().linkIdentity("github", "12345", second.id);
      expect(await repo().findByIdentity("github", "12345")).toEqual(first);

      await repo().linkIdentity("google", "12345", second.id);
      expect(await repo().findByIdentity("google", "12345")).toEqual(second);
      expect(await repo().findByIdentity("github", "12345")).toEqual(first);
    });

    test("an unknown identity finds no one", async () => {
      const user = aUser();
      await repo().create(user);
      await repo().linkIdentity("github", "12345", user.id);
      expect(await repo().findByIdentity("github", "99999")).toBeNull();
      expect(await repo().findByIdentity("apple", "12345")).toBeNull();
    });

    test("a user without a fundraiser has no fundraiser id", async () => {
      const user = aUser({ role: "FUNDRAISER" });
      await repo().create(user);
      expect(await repo().findFundraiserId(user.id)).toBeNull();
      expect(await repo().findFundraiserId("no-such-user")).toBeNull();
    });
  });
}
