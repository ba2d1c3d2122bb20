import type { SuppressionList } from "../../application/ports/mail.ts";

export function createMemorySuppressionList(suppressed: Map<string, { reason: "bounced" | "complained"; at: Date }>): SuppressionList {
  return {
    async add(email, reason, at) {
      if (!suppressed.has(email.toLowerCase())) suppressed.set(email.toLowerCase(), { reason, at });
    },
    async has(email) {
      return suppressed.has(email.toLowerCase());
    },
  };
}
