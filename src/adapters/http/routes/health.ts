import { Elysia } from "elysia";
import { z } from "zod";
import type { UseCases } from "../../../application/use-cases.ts";
import type { Logger } from "../../log.ts";

export function healthRoutes(useCases: UseCases, logger: Logger) {
  return new Elysia({ name: "routes.health" }).get(
    "/health",
    async ({ status }) => {
      const health = await useCases.checkHealth();
      if (health.status === "ok") return { status: "ok" as const };
      logger.error("health.database_unavailable", { reason: health.reason });
      return status(503, { status: "unavailable" as const, error: "Database unavailable" });
    },
    {
      response: {
        200: z.object({ status: z.literal("ok") }).describe("The shop is up, and its database answered"),
        503: z.object({ status: z.literal("unavailable"), error: z.string() }).describe("The database did not answer (the reason is logged, not told)"),
      },
      detail: { tags: ["System"], summary: "Liveness with a database round trip" },
    },
  );
}
