import type { AccountFilter, AccountSummary } from "../../domain/account.ts";
import { DomainError } from "../../domain/errors.ts";
import type { OrderView } from "../../domain/order.ts";
import type { PageRequest, Paged } from "../../domain/paging.ts";
import type { Actor } from "../../domain/permissions.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";

/** How many of an account's orders its page shows (decisions §12). */
export const LATEST_ORDERS = 20;

/** GET /api/admin/users: a page of accounts with their order figures, newest first. */
export async function listUsers(deps: Pick<Deps, "uow">, actor: Actor, filter: AccountFilter, page: PageRequest): Promise<Paged<AccountSummary>> {
  requirePermission(actor, "users:read");
  return deps.uow.read((db) => db.users.listAccounts(filter, page));
}

/** How many accounts one of everyUser's reads brings. */
const EVERY_USER_BATCH = 100;

/**
 * Every matching account with its order figures, newest first, for staff with users:read (the CLI's
 * users:list): batch by batch as the caller pulls them, each batch starting after the last account
 * of the one before, so accounts made meanwhile push none of the others into a second showing.
 */
export async function everyUser(deps: Pick<Deps, "uow">, actor: Actor, filter: AccountFilter): Promise<AsyncGenerator<AccountSummary[]>> {
  requirePermission(actor, "users:read");
  return deps.uow.read(async (db) => db.users.everyAccount(filter, EVERY_USER_BATCH));
}

export interface AccountDetail {
  account: AccountSummary;
  /** The newest LATEST_ORDERS, newest first. */
  orders: OrderView[];
}

/** GET /api/admin/users/:id: the account and its latest orders. */
export async function getUser(deps: Pick<Deps, "uow">, actor: Actor, id: string): Promise<AccountDetail> {
  requirePermission(actor, "users:read");
  return deps.uow.read(async (db) => {
    const account = await db.users.findAccount(id);
    if (!account) throw new DomainError("user.not_found", "User not found");
    const { orders } = await db.orders.list({ userId: id, skip: 0, take: LATEST_ORDERS, sortOrder: "desc" });
    return { account, orders };
  });
}
