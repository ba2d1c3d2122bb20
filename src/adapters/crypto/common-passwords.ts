import { dictionary } from "@zxcvbn-ts/language-common";
import type { CommonPasswords } from "../../application/ports/identity.ts";

/**
 * The 49,233 most common passwords of zxcvbn-ts's common dictionary (@zxcvbn-ts/language-common,
 * MIT; ranked from leaked-password frequency lists), all lowercase: well past the 10,000 decisions
 * §10 asks for. Decoded once (~6 ms) and kept as a set.
 */
const passwords = new Set(dictionary["passwords-common"]);

export const commonPasswords: CommonPasswords = { includes: (lowercased) => passwords.has(lowercased) };
