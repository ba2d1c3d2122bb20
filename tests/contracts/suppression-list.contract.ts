import { describe, expect, test } from "bun:test";
import type { ContractTarget } from "./targets.ts";

export function suppressionListContract(target: () => ContractTarget) {
  describe("SuppressionList", () => {
    const add = (email: string, reason: "bounced" | "complained" = "bounced") =>
      target().uow.transaction((tx) => tx.suppressions.add(email, reason, new Date("2026-11-23T10:00:00Z")));

    test("an address added is suppressed whatever its case; others are not", async () => {
      await add("Bounce@Example.com");
      expect(await target().repos.suppressions.has("bounce@example.com")).toBe(true);
      expect(await target().repos.suppressions.has("BOUNCE@EXAMPLE.COM")).toBe(true);
      expect(await target().repos.suppressions.has("fine@example.com")).toBe(false);
    });

    test("adding an address twice (a bounce, then a complaint) keeps it once", async () => {
      await add("twice@example.com", "bounced");
      await add("twice@example.com", "complained");
      expect(await target().repos.suppressions.has("twice@example.com")).toBe(true);
    });
  });
}
