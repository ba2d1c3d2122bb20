import { describe, expect, test } from "bun:test";
import { emailProblem, nameProblem, newUser, normalizeEmail, passwordProblem, providerName } from "../../src/domain/user.ts";

const common = new Set(["password1", "iloveyou"]);
const isCommon = (lowercased: string) => common.has(lowercased);

describe("passwordProblem", () => {
  test.each([
    ["eight ch", null],
    ["éééééééé", null],
    ["é".repeat(36), null],
    ["🌶️🌶️🌶️🌶️", null],
    ["seven c", "Password must be at least 8 characters"],
    ["🌶🌶🌶🌶🌶🌶🌶", "Password must be at least 8 characters"],
    ["é".repeat(37), "Password must be at most 72 bytes"],
    ["x".repeat(73), "Password must be at most 72 bytes"],
    ["        ", "Password must not be only spaces"],
    [" \t \t  \u00a0 ", "Password must not be only spaces"],
    ["password1", "Password is too common; choose one that is harder to guess"],
    ["ILoveYou", "Password is too common; choose one that is harder to guess"],
  ])("%p → %p", (password, problem) => {
    expect(passwordProblem(password, isCommon)).toBe(problem);
  });

  test("the list is asked with the password lowercased", () => {
    const asked: string[] = [];
    passwordProblem("Correct Horse", (lowercased) => (asked.push(lowercased), false));
    expect(asked).toEqual(["correct horse"]);
  });
});

describe("e-mail addresses", () => {
  test("are compared trimmed and lowercased", () => {
    expect(normalizeEmail("  Ada@Example.COM ")).toBe("ada@example.com");
    expect(newUser({ id: "u", email: " Ada@Example.COM", passwordHash: null, role: "CUSTOMER", isEmailVerified: false, at: new Date(0) }).email).toBe(
      "ada@example.com",
    );
  });

  test.each([
    ["ada@example.com", null],
    [" Ada@Example.co.uk ", null],
    ["not-an-email", "Invalid email address"],
    ["a@b", "Invalid email address"],
    ["a b@c.de", "Invalid email address"],
    [`${"a".repeat(64)}@example.com`, null],
    [`${"a".repeat(65)}@example.com`, "Invalid email address"],
    // Lowercased, these would be another's ASCII address (found by an attack): refused as given.
    ["\u212Aate@example.com", "Invalid email address"],
    ["ａｄａ@example.com", "Invalid email address"],
    ["josé@example.com", "Invalid email address"],
    ["ad\u200ba@example.com", "Invalid email address"],
  ])("emailProblem(%p) → %p", (email, problem) => expect(emailProblem(email)).toBe(problem));

  test.each([
    ["Ada Lovelace", null],
    ["  Ada\tLovelace  ", null],
    ["אדה", null],
    ["Ada\nLovelace", "must be one line"],
    ["Ada\u2028Lovelace", "must be one line"],
    ["Ada\u0007", "must not contain control characters"],
    ["Ada\u009b31m", "must not contain control characters"],
    ["a".repeat(100), null],
    ["a".repeat(101), "must be at most 100 characters"],
  ])("nameProblem(%p) → %p", (name, problem) => expect(nameProblem(name)).toBe(problem));

  test.each([
    [" Ann Lee ", "Ann Lee"],
    ["Rene\u0301e", "Ren\u00e9e"],
    ["", null],
    [null, null],
    ["Evil\u009b31m", null],
    ["Two\nlines", null],
    ["Nul\u0000", null],
    ["Sur\ud800rogate", null],
    ["a".repeat(101), null],
  ])("a provider's name %p is kept as %p", (name, kept) => expect(providerName(name)).toBe(kept));
});
