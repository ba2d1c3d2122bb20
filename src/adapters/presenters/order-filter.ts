import { z } from "zod";
import { CUID2_PATTERN } from "../../domain/ids.ts";
import { ORDER_STATUSES, PAYMENT_STATUSES } from "../../domain/order.ts";
import { parseDay, startOfDay } from "../../domain/time-zone.ts";
import type { OrderQueueFilter } from "../../application/ports/orders.ts";

/**
 * The back office's order filters as text (decisions §12), read alike from a query string (GET
 * /api/admin/orders and its export) and from the CLI's flags (orders:export): a bad value is an
 * issue naming its field.
 */

const oneOrMore = <T extends string>(values: readonly T[]) => {
  const listed = `one or more of ${values.join(", ")}, separated by commas`;
  return z
    .string()
    .transform((text, ctx) => {
      const given = [...new Set(text.split(",").map((part) => part.trim()))];
      if (given.every((value): value is T => (values as readonly string[]).includes(value))) return given;
      ctx.addIssue({ code: "custom", message: `must be ${listed}` });
      return z.NEVER;
    })
    .optional()
    .describe(listed);
};

/**
 * An instant a filter starts or ends at: an ISO 8601 date-time with its offset, or a date, which is
 * the shop's day (SHOP_TIMEZONE) and starts at its first instant there, as the sales report's days
 * do; within the years 1 to 9999 in UTC, which every database the shop runs on reads (the embedded
 * one refuses the rest: a 500).
 */
export const isoInstantIn = (zone: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: "must be an ISO 8601 date (2026-11-01) or date and time with its offset (2026-11-01T09:30:00Z)",
    })
    .transform((text) => {
      const day = parseDay(text);
      return day === null ? new Date(text) : startOfDay(zone, day);
    })
    .refine((at) => at.getUTCFullYear() >= 1 && at.getUTCFullYear() <= 9999, "must be within the years 1 to 9999 (UTC)");

/** The back office's order filters, a date being a day of the shop's zone. */
export const orderFilterFieldsIn = (zone: string) => ({
  status: oneOrMore(ORDER_STATUSES),
  paymentStatus: oneOrMore(PAYMENT_STATUSES),
  q: z
    .string()
    .max(100)
    .transform((text) => text.trim() || undefined)
    .optional()
    .describe("part of the order number, or of the customer's e-mail or name, in any case; blank is no filter"),
  from: isoInstantIn(zone)
    .optional()
    .describe("orders made at or after: a date (its start in the shop's zone, SHOP_TIMEZONE) or a date and time with its offset, ISO 8601"),
  to: isoInstantIn(zone)
    .optional()
    .describe("orders made before (exclusive): a date (its start in the shop's zone, SHOP_TIMEZONE) or a date and time with its offset, ISO 8601"),
  customerId: z.string().regex(new RegExp(CUID2_PATTERN), "must be a customer id").optional(),
});

type ReadFilter = z.output<z.ZodObject<ReturnType<typeof orderFilterFieldsIn>>>;

/** A range must run forwards: `to` after `from`. */
export const rangeRunsForwards = {
  check: (f: Pick<ReadFilter, "from" | "to">) => !f.from || !f.to || f.from < f.to,
  issue: { message: "must be after from", path: ["to"] },
};

/** The filter as the use cases take it: only the filters given. */
export function orderQueueFilter(f: ReadFilter): OrderQueueFilter {
  const filter: OrderQueueFilter = {
    statuses: f.status,
    paymentStatuses: f.paymentStatus,
    q: f.q,
    from: f.from,
    to: f.to,
    customerId: f.customerId,
  };
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}
