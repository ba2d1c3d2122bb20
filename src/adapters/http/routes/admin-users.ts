import { Elysia } from "elysia";
import { z } from "zod";
import { accountOf } from "../../../domain/account.ts";
import { USER_ROLES } from "../../../domain/user.ts";
import type { Clock, Logger } from "../../../application/ports/system.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { ACCOUNT_CSV_HEADER, accountCsvRow, accountSchema, accountSummarySchema, presentAccount, presentAccountSummary } from "../../presenters/account.ts";
import { csvDocument, csvFileName } from "../../presenters/csv.ts";
import { orderSchema, presentOrder } from "../../presenters/order.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { csvHead, csvResponse, logCut } from "../csv.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";
import { JSON_BODY, envelope, envelopeError, idOf, pageQuery, pagedEnvelope } from "../schemas.ts";

const filters = {
  q: z
    .string()
    .max(100)
    .transform((text) => text.trim() || undefined)
    .optional()
    .describe("a part of the e-mail or the name, any case; blank is no filter"),
  role: z.enum(USER_ROLES).optional(),
};
const idParam = z.object({ id: idOf("a user") });
const roleChange = z.strictObject({ role: z.enum(USER_ROLES) }).meta({ id: "RoleChange" });
const detailSchema = z
  .object({ account: accountSummarySchema, orders: z.array(orderSchema).describe("the 20 latest, newest first") })
  .meta({ id: "AccountDetail" });

const csvAnswer = z.string().describe("The accounts as CSV, streamed");
const errors = { 400: envelopeError, 401: envelopeError, 403: envelopeError };

/** Decisions §12's accounts: the list, one account, a role change, the CSV export. */
export function adminUsersRoutes(useCases: UseCases, auth: AuthSettings, logger: Logger, shopTimeZone: string, clock: Clock) {
  return new Elysia({ name: "routes.admin-users", prefix: "/admin/users", detail: { tags: ["Back office"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, auth))
    .get(
      "",
      async ({ query: { page, limit, ...filter }, principal }) => {
        const found = await useCases.listUsers(principal.actor, filter, { page, limit });
        return { success: true as const, data: found.items.map(presentAccountSummary), error: null, meta: { total: found.total, page, limit } };
      },
      {
        envelope: true,
        auth: { permission: "users:read" },
        query: z.object({ ...filters, ...pageQuery }),
        response: {
          200: pagedEnvelope(accountSummarySchema)
            .meta({ id: "AccountSummaryPage" })
            .describe("A page of accounts with their orders in figures, and how many match in all"),
          ...errors,
        },
        detail: { summary: "Accounts with their order figures, newest first (users:read)" },
      },
    )
    .get(
      "/export",
      async ({ query, principal, origin, request }) => {
        if (request.method === "HEAD") return csvHead(csvFileName("users", clock.now(), shopTimeZone));
        const started = await useCases.exportUsers(principal.actor, query, origin);
        return csvResponse(request, csvFileName("users", started.startedAt, shopTimeZone), csvDocument(ACCOUNT_CSV_HEADER, started.batches, accountCsvRow), {
          onCut: logCut(logger, request, "users"),
        });
      },
      {
        envelope: true,
        auth: { permission: "users:export" },
        query: z.object(filters),
        response: { 200: csvAnswer, ...errors },
        detail: {
          summary: "The accounts as CSV, with the list's filters (users:export); audited as user.export",
          "x-csv": true,
        },
      },
    )
    .get(
      "/:id",
      async ({ params, principal }) => {
        const found = await useCases.getUser(principal.actor, params.id);
        return { success: true as const, data: { account: presentAccountSummary(found.account), orders: found.orders.map(presentOrder) }, error: null };
      },
      {
        envelope: true,
        auth: { permission: "users:read" },
        params: idParam,
        response: {
          200: envelope(detailSchema).meta({ id: "AccountDetailAnswer" }).describe("The account and its 20 latest orders"),
          ...errors,
          404: envelopeError,
        },
        detail: { summary: "One account and its 20 latest orders (users:read)" },
      },
    )
    .put(
      "/:id/role",
      async ({ params, body, principal, origin }) => {
        const user = await useCases.setUserRole(principal.actor, { id: params.id }, body.role, origin);
        return { success: true as const, data: presentAccount(accountOf(user)), error: null };
      },
      {
        envelope: true,
        auth: { permission: "users:write" },
        params: idParam,
        body: roleChange,
        ...JSON_BODY,
        response: {
          200: envelope(accountSchema).meta({ id: "AccountAnswer" }).describe("The account with its new role"),
          ...errors,
          404: envelopeError,
          409: envelopeError,
        },
        detail: {
          summary: "Change an account's role (users:write); audited as user.role_change",
          description:
            "Only an ADMIN or DEVELOPER may give or take away ADMIN or DEVELOPER (403 otherwise, whatever else the caller was granted). " +
            "The last ADMIN cannot be demoted (409). Signed-in sessions of the account have the new role at once on this instance, within 30 s on others.",
        },
      },
    );
}
