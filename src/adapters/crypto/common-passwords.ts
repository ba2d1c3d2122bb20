import type { CommonPasswords } from "../../application/ports/identity.ts";

let passwords: ReadonlySet<string> | undefined;

/**
 * The 49,233 most common passwords of zxcvbn-ts's common dictionary (@zxcvbn-ts/language-common,
 * MIT; ranked from leaked-password frequency lists), all lowercase: well past the 10,000 decisions
 * §10 asks for. Loaded and decoded (~6 ms) on the first password check, not by every process at
 * start (some 20 MB one that checks none would carry), then kept as a set.
 */
export const commonPasswords: CommonPasswords = {
  includes(lowercased) {
    passwords ??= new Set((require("@zxcvbn-ts/language-common") as typeof import("@zxcvbn-ts/language-common")).dictionary["passwords-common"]);
    return passwords.has(lowercased);
  },
};
