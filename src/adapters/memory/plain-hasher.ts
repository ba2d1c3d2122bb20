import type { PasswordHasher } from "../../application/ports/identity.ts";

/** A fast, obviously insecure stand-in for bcrypt, for tests that are not about hashing. */
export const plainHasher: PasswordHasher = {
  hash: async (password) => `plain:${password}`,
  verify: async (passwords, hash) => passwords.some((password) => hash === `plain:${password}`),
};
