import { Elysia } from "elysia";
import { z } from "zod";
import { ORDER_HISTORY_SHOWN } from "../../../application/admin/order-detail.ts";
import type { Clock, Logger } from "../../../application/ports/system.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { adminOrderDetailSchema, adminOrderSchema, presentAdminOrder, presentOrderDetail } from "../../presenters/admin-order.ts";
import { csvDocument, csvFileName } from "../../presenters/csv.ts";
import { ORDER_CSV_HEADER, orderCsvRow } from "../../presenters/order-csv.ts";
import { orderFilterFieldsIn, orderQueueFilter, rangeRunsForwards } from "../../presenters/order-filter.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { csvHead, csvResponse, logCut } from "../csv.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";
import { envelope, envelopeError, idOf, pageQuery, pagedEnvelope, queryText } from "../schemas.ts";

/** The filters as a query string reads them, a date being a day of the shop's zone. */
function queries(zone: string) {
  const fields = orderFilterFieldsIn(zone);
  const filterFields = {
    status: queryText(fields.status),
    paymentStatus: queryText(fields.paymentStatus),
    q: queryText(fields.q),
    from: queryText(fields.from),
    to: queryText(fields.to),
    customerId: queryText(fields.customerId),
  };
  return {
    filterQuery: z.object(filterFields).refine(rangeRunsForwards.check, rangeRunsForwards.issue),
    listQuery: z.object({ ...filterFields, ...pageQuery }).refine(rangeRunsForwards.check, rangeRunsForwards.issue),
  };
}

const orderPage = pagedEnvelope(adminOrderSchema).meta({ id: "AdminOrderPage" });
const orderAnswer = envelope(adminOrderDetailSchema).meta({ id: "AdminOrderAnswer" });
const errors = { 400: envelopeError, 401: envelopeError, 403: envelopeError };
const csvAnswer = z.string().describe("The matching orders' lines as CSV, streamed: a download named orders-YYYYMMDD.csv");

const FILTERS =
  "Filters, each optional, all together: status and paymentStatus (one value or several, comma-separated), q (part of the order number, or of the customer's e-mail or name, any case), from (inclusive) and to (exclusive) on the creation time (a date is a day of the shop's zone, SHOP_TIMEZONE), customerId. A bad value is 400 naming its field.";

/** The back office's orders (decisions §12): the queue, one order's detail, and the CSV export. */
export function adminOrdersRoutes(useCases: UseCases, settings: AuthSettings, logger: Logger, shopTimeZone: string, clock: Clock) {
  const { filterQuery, listQuery } = queries(shopTimeZone);
  return new Elysia({ name: "routes.admin-orders", prefix: "/admin/orders", detail: { tags: ["Back office"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, settings))
    .get(
      "",
      async ({ principal, query }) => {
        const { page, limit } = query;
        const result = await useCases.listOrderQueue(principal.actor, orderQueueFilter(query), { page, limit });
        return { success: true as const, data: result.items.map(presentAdminOrder), error: null, meta: { total: result.total, page, limit } };
      },
      {
        envelope: true,
        auth: { permission: "orders:read" },
        query: listQuery,
        response: { 200: orderPage.describe("A page of every customer's orders, newest first, and how many match in all"), ...errors },
        detail: {
          summary: "Every customer's orders, newest first, with their customer and line count (orders:read)",
          description: `${FILTERS} Paged as the other lists: page, limit (1 to 100), meta { total, page, limit }.`,
        },
      },
    )
    .get(
      "/export",
      async ({ principal, query, origin, request }) => {
        if (request.method === "HEAD") return csvHead(csvFileName("orders", clock.now(), shopTimeZone));
        const exported = await useCases.exportOrders(principal.actor, orderQueueFilter(query), origin);
        return csvResponse(request, csvFileName("orders", exported.startedAt, shopTimeZone), csvDocument(ORDER_CSV_HEADER, exported.lines, orderCsvRow), {
          onCut: logCut(logger, request, "orders"),
        });
      },
      {
        envelope: true,
        auth: { permission: "orders:export" },
        query: filterQuery,
        response: { 200: csvAnswer, ...errors },
        detail: {
          summary: "The matching orders as CSV, one row per order line, streamed (orders:export)",
          description: `${FILTERS} Columns: ${ORDER_CSV_HEADER.join(", ")}; money in dollars with two decimals, the order's own on each of its lines. Audited as order.export with the filters.`,
          "x-csv": true,
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, params }) => ({
        success: true as const,
        data: presentOrderDetail(await useCases.getOrderDetail(principal.actor, params.id)),
        error: null,
      }),
      {
        envelope: true,
        auth: { permission: "orders:read" },
        params: z.object({ id: idOf("an order") }),
        response: { 200: orderAnswer.describe("The order with its customer, its payment facts and its history"), ...errors, 404: envelopeError },
        detail: {
          summary:
            "One order with its customer, its payment facts (provider, intent, attempts, paid reference, refunds due or made) and its history (orders:read)",
          description: `history: the latest ${ORDER_HISTORY_SHOWN} audit entries about the order (order, payment and webhook actions), oldest first; historyTotal: how many it has in all (GET /api/admin/audit?entityId= has every one).`,
        },
      },
    );
}
