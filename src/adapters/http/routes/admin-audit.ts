import { Elysia } from "elysia";
import { z } from "zod";
import type { AuditEntry } from "../../../domain/audit.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { isoInstantIn, rangeRunsForwards } from "../../presenters/order-filter.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";
import { envelopeError, idOf, pageQuery, pagedEnvelope, timestamp } from "../schemas.ts";

const auditEntrySchema = z
  .object({
    id: z.string(),
    userId: z.string().nullable().describe("who acted; null for the shop itself (the CLI, housekeeping, a provider's webhook)"),
    action: z.string(),
    entityType: z.string(),
    entityId: z.string().nullable(),
    changes: z.record(z.string(), z.unknown()),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: "AuditEntry" });

const present = (e: AuditEntry): z.infer<typeof auditEntrySchema> => ({
  id: e.id,
  userId: e.userId,
  action: e.action,
  entityType: e.entityType,
  entityId: e.entityId,
  changes: e.changes,
  ipAddress: e.ipAddress,
  userAgent: e.userAgent,
  createdAt: e.createdAt.toISOString(),
});

/** The audit log's filters as a query string reads them, a date being a day of the shop's zone. */
const auditQueryIn = (zone: string) =>
  z
    .object({
      userId: idOf("a user").optional(),
      action: z
        .string()
        .max(100)
        .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)*\.?$/, "must be an action (order.create), or the start of some ending in . (order.)")
        .optional(),
      entityType: z.string().trim().min(1).max(50).optional(),
      entityId: z.string().trim().min(1).max(200).optional(),
      from: isoInstantIn(zone).optional().describe("ISO 8601 date (a day of the shop's zone, SHOP_TIMEZONE) or date-time; entries at or after it"),
      to: isoInstantIn(zone).optional().describe("ISO 8601 date (a day of the shop's zone, SHOP_TIMEZONE) or date-time; entries before it"),
      ...pageQuery,
    })
    .refine(rangeRunsForwards.check, rangeRunsForwards.issue);

/** Decisions §12's audit log, for settings:read. */
export function adminAuditRoutes(useCases: UseCases, auth: AuthSettings, shopTimeZone: string) {
  return new Elysia({ name: "routes.admin-audit", prefix: "/admin/audit", detail: { tags: ["Back office"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, auth))
    .get(
      "",
      async ({ query: { page, limit, ...search }, principal }) => {
        const found = await useCases.readAuditLog(principal.actor, search, { page, limit });
        return { success: true as const, data: found.items.map(present), error: null, meta: { total: found.total, page, limit } };
      },
      {
        envelope: true,
        auth: { permission: "settings:read" },
        query: auditQueryIn(shopTimeZone),
        response: {
          200: pagedEnvelope(auditEntrySchema).meta({ id: "AuditEntryPage" }).describe("A page of the audit log, newest first, and how many match in all"),
          400: envelopeError,
          401: envelopeError,
          403: envelopeError,
        },
        detail: {
          summary: "The audit log, newest first (settings:read)",
          description: "`action` is one action (`user.role_change`), or, ending in `.`, every action it begins (`order.`). `from` inclusive, `to` exclusive.",
        },
      },
    );
}
