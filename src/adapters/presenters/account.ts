import { z } from "zod";
import type { Account, AccountSummary } from "../../domain/account.ts";
import { toDollars } from "../../domain/money.ts";
import { USER_ROLES } from "../../domain/user.ts";
import type { CsvCell } from "./csv.ts";
import { money, timestamp } from "./shapes.ts";

/**
 * Accounts as the back office shows them (the API, `users:list --json`, the CSV export): whether an
 * account has a password, never the hash; nothing of its sessions.
 */

const accountFields = {
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(USER_ROLES),
  image: z.string().nullable(),
  isEmailVerified: z.boolean(),
  hasPassword: z.boolean().describe("false for an account made through an identity provider"),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const accountSchema = z.object(accountFields).meta({ id: "Account" });

export const accountSummarySchema = z
  .object({
    ...accountFields,
    orderCount: z.int().describe("every order placed, whatever became of it"),
    totalSpent: money.describe("US dollars: the orders paid and not cancelled or refunded"),
    lastOrderAt: timestamp.nullable(),
  })
  .meta({ id: "AccountSummary" });

export function presentAccount(a: Account): z.infer<typeof accountSchema> {
  return {
    id: a.id,
    email: a.email,
    name: a.name,
    role: a.role,
    image: a.image,
    isEmailVerified: a.isEmailVerified,
    hasPassword: a.hasPassword,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export function presentAccountSummary(a: AccountSummary): z.infer<typeof accountSummarySchema> {
  return { ...presentAccount(a), orderCount: a.orderCount, totalSpent: toDollars(a.totalSpent), lastOrderAt: a.lastOrderAt?.toISOString() ?? null };
}

export const ACCOUNT_CSV_HEADER = ["id", "email", "name", "role", "emailVerified", "hasPassword", "orderCount", "totalSpent", "lastOrderAt", "createdAt"];

export function accountCsvRow(a: AccountSummary): CsvCell[] {
  return [a.id, a.email, a.name, a.role, a.isEmailVerified, a.hasPassword, a.orderCount, { cents: a.totalSpent }, a.lastOrderAt, a.createdAt];
}
