import { Elysia } from "elysia";
import { z } from "zod";
import type { UseCases } from "../../../application/use-cases.ts";
import type { Logger } from "../../log.ts";

/** How soon a load balancer or client may ask again once the shop is not alive or not ready (decisions §14: 503 with Retry-After). */
const NOT_READY_RETRY_SECONDS = 5;

const migrations = z.object({
  current: z.boolean().describe("The database has run every migration this code has"),
  pending: z.array(z.string()).describe("The migrations it has not run, oldest first (`npm run cli -- db:migrate` runs them)"),
});
const count = (description: string) => z.int().min(0).describe(description);
const reported = {
  rateLimitStore: z
    .enum(["redis", "memory", "fallback"])
    .describe("Where the rate-limit and sign-in counters are kept now: Redis, memory (no REDIS_URL), or fallback (memory while Redis does not answer)"),
  outbox: z
    .object({
      pending: count("Mail waiting to be sent"),
      failed: count("Mail given up on after its last attempt, kept for an operator"),
    })
    .nullable()
    .describe("Null when it could not be read"),
};
const Ready = z.object({ status: z.literal("ready"), database: z.literal("ok"), migrations, ...reported }).meta({ id: "Ready" });
const NotReady = z
  .object({
    status: z.literal("unavailable"),
    error: z.enum(["Database unavailable", "Database migrations are behind"]).describe("Why (the database's own error is logged, not told)"),
    database: z.enum(["ok", "unavailable"]).describe("Whether the database answered a round trip"),
    migrations: migrations.nullable().describe("Null when the database did not answer"),
    ...reported,
  })
  .meta({ id: "NotReady" });

export function healthRoutes(useCases: UseCases, logger: Logger) {
  return new Elysia({ name: "routes.health" })
    .get(
      "/health",
      async ({ status, set }) => {
        const health = await useCases.checkHealth();
        if (health.status === "ok") return { status: "ok" as const };
        logger.error("health.database_unavailable", { error: "Database unavailable", reason: health.reason });
        set.headers["retry-after"] = String(NOT_READY_RETRY_SECONDS);
        return status(503, { status: "unavailable" as const, error: "Database unavailable" });
      },
      {
        response: {
          200: z.object({ status: z.literal("ok") }).describe("The shop is up, and its database answered"),
          503: z
            .object({ status: z.literal("unavailable"), error: z.string() })
            .describe(`The database did not answer (the reason is logged, not told; Retry-After: ${NOT_READY_RETRY_SECONDS})`),
        },
        detail: { tags: ["System"], summary: "Liveness with a database round trip", "x-retry-after": true },
      },
    )
    .get(
      "/health/ready",
      async ({ status, set }) => {
        const { ready, reason, ...report } = await useCases.checkReadiness();
        if (ready && report.migrations) return { status: "ready" as const, ...report, database: "ok" as const, migrations: report.migrations };
        const error = report.database === "ok" ? ("Database migrations are behind" as const) : ("Database unavailable" as const);
        logger.error("health.not_ready", { error, reason });
        set.headers["retry-after"] = String(NOT_READY_RETRY_SECONDS);
        return status(503, { status: "unavailable" as const, error, ...report });
      },
      {
        response: {
          200: Ready.describe("Ready for traffic: the database answered and has every migration; the rate-limit store and the outbox as they are"),
          503: NotReady.describe(`Not ready: the database did not answer, or is behind this code's migrations (Retry-After: ${NOT_READY_RETRY_SECONDS})`),
        },
        detail: {
          tags: ["System"],
          summary: "Readiness: the database answers and its schema is current; reports the rate-limit store and the outbox",
          description:
            "For load balancers and orchestrators. Redis not answering (the limits fall back to memory) and mail waiting or given up on are reported, never a reason to refuse traffic.",
          "x-retry-after": true,
        } as object,
      },
    );
}
