import { type ExpressionBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { AccountFilter, AccountSummary } from "../../domain/account.ts";
import { ORDER_STATUSES, isFinalStatus } from "../../domain/order.ts";
import { type PageRequest, offsetOf } from "../../domain/paging.ts";
import type { UserRole } from "../../domain/user.ts";
import type { Db } from "./database.ts";
import { quietSince } from "../traffic.ts";
import { asDatabaseRefusal, containsPattern, readAhead } from "./sql-helpers.ts";
import type { Database } from "./tables.ts";

/** The back office's reads of accounts with their order figures (UserReader's listAccounts, findAccount, everyAccount). */

const ENDED = ORDER_STATUSES.filter(isFinalStatus);

type Users = SelectQueryBuilder<Database, "users", object>;

function matching(db: Db, filter: AccountFilter): Users {
  let query: Users = db.selectFrom("users");
  if (filter.q !== undefined) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) => eb.or([eb("email", "ilike", pattern), eb("name", "ilike", pattern)]));
  }
  // The role written into the statement (one of six, so six statements at most): as a parameter, the
  // plan made once for every role took it for most accounts and walked every account newest first,
  // filtering, for the few STAFF of 47,000 (47,000 pages and 34 ms a page); written, the planner knows
  // how few hold it and reads the index by role.
  if (filter.role !== undefined) query = query.where("role", "=", sql.lit(filter.role));
  return query;
}

// Never the hash itself: whether there is one is all the back office may know.
const accountColumns = (query: Users) =>
  query
    .select(["id", "email", "name", "role", "image", "is_email_verified", "created_at", "updated_at"])
    .select((eb) => [eb("password_hash", "is not", null).as("has_password"), sql<string>`created_at::text`.as("cursor")]);

/**
 * The figures of each account of an already chosen page, one index probe each (orders by user):
 * the page is picked and ordered first, so no account outside it is ever summed.
 */
function withFigures(db: Db, page: ReturnType<typeof accountColumns>) {
  return db
    .selectFrom(page.as("u"))
    .leftJoinLateral(
      (eb: ExpressionBuilder<Database & { u: { id: string } }, "u">) =>
        eb
          .selectFrom("orders as o")
          .whereRef("o.user_id", "=", "u.id")
          .select((o) => [
            o.fn.countAll<string>().as("order_count"),
            o.fn
              .coalesce(o.fn.sum<string>("o.total_cents").filterWhere("o.payment_status", "=", "PAID").filterWhere("o.status", "not in", ENDED), sql<string>`0`)
              .as("total_spent"),
            o.fn.max("o.created_at").as("last_order_at"),
          ])
          .as("f"),
      (join) => join.onTrue(),
    )
    .selectAll("u")
    .select(["f.order_count", "f.total_spent", "f.last_order_at"])
    .orderBy("u.created_at", "desc")
    .orderBy("u.id", "desc");
}

type Row = Awaited<ReturnType<ReturnType<typeof withFigures>["execute"]>>[number];

function toSummary(row: Row): AccountSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role as UserRole,
    image: row.image,
    isEmailVerified: row.is_email_verified,
    hasPassword: Boolean(row.has_password),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    orderCount: Number(row.order_count ?? 0),
    totalSpent: Number(row.total_spent ?? 0),
    lastOrderAt: row.last_order_at ?? null,
  };
}

const newestFirst = (query: ReturnType<typeof accountColumns>) => query.orderBy("created_at", "desc").orderBy("id", "desc");

export async function accountsPage(db: Db, filter: AccountFilter, page: PageRequest): Promise<AccountSummary[]> {
  const chosen = newestFirst(accountColumns(matching(db, filter)))
    .limit(page.limit)
    .offset(offsetOf(page));
  return (await withFigures(db, chosen).execute()).map(toSummary);
}

export async function countAccounts(db: Db, filter: AccountFilter): Promise<number> {
  const row = await matching(db, filter)
    .select((eb) => eb.fn.countAll<string>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export async function findAccount(db: Db, id: string): Promise<AccountSummary | null> {
  const [row] = await withFigures(db, accountColumns(db.selectFrom("users").where("id", "=", id))).execute();
  return row ? toSummary(row) : null;
}

/**
 * Keyset batches in the list's order. The cursor is the creation time as PostgreSQL's own text, so
 * the next batch starts exactly after the last row, microseconds and all (a JavaScript Date keeps
 * milliseconds, and rows made by SQL defaults have more). While the process is quiet, the next batch
 * is read meanwhile (readAhead).
 */
export async function* everyAccount(db: Db, filter: AccountFilter, batchSize = 1000): AsyncGenerator<AccountSummary[]> {
  const batchAfter = (last: Row | null) => {
    const batch = newestFirst(accountColumns(matching(db, filter))).limit(batchSize);
    const after = last ? batch.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(sql<Date>`${last.cursor}::timestamptz`, last.id))) : batch;
    return withFigures(db, after).execute();
  };
  // Read after the unit of work handed the generator over: its refusals are made here.
  try {
    for await (const rows of readAhead(batchAfter, batchSize, quietSince())) yield rows.map(toSummary);
  } catch (error) {
    throw asDatabaseRefusal(error);
  }
}
