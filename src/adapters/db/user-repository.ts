import { DomainError } from "../../domain/errors.ts";
import { type User, type UserRole, normalizeEmail } from "../../domain/user.ts";
import type { UserRepository } from "../../application/ports/identity.ts";
import { accountsPage, countAccounts, everyAccount, findAccount } from "./account-queries.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import { violatedUniqueConstraint } from "./sql-helpers.ts";
import type { Database } from "./tables.ts";
import { type Selectable, sql } from "kysely";

function toUser(row: Selectable<Database["users"]>): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    passwordHash: row.password_hash,
    role: row.role as UserRole,
    image: row.image,
    isEmailVerified: row.is_email_verified,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// Every checkout holds its customer (compiled once: see compile-once.ts).
const heldForCheckout = compileOnce((db, id: string) => db.selectFrom("users").select("id").where("id", "=", id).forNoKeyUpdate());

export function createPgUserRepository(db: Db): UserRepository {
  return {
    async findById(id) {
      const row = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toUser(row) : null;
    },
    // FOR NO KEY UPDATE, as every lock of an account's row here: FOR UPDATE would also hold back the
    // rows that refer to it (a cart line added, an audit entry) while a password is checked.
    async lock(id) {
      const row = await db.selectFrom("users").selectAll().where("id", "=", id).forNoKeyUpdate().executeTakeFirst();
      return row ? toUser(row) : null;
    },
    async lockInIdOrder(ids, alsoWithRole) {
      if (ids.length === 0 && alsoWithRole === undefined) return [];
      const rows = await db
        .selectFrom("users")
        .selectAll()
        .where((eb) => {
          const named = ids.length > 0 ? [eb("id", "in", [...ids])] : [];
          // The role written into the statement: as a parameter, the plan made once for every role
          // took it for most accounts and walked every account in id order to lock the few ADMINs
          // (47,000 pages and 54 ms a role change at 47,000 accounts); written, both are index look-ups.
          return eb.or(alsoWithRole === undefined ? named : [...named, eb("role", "=", sql.lit(alsoWithRole))]);
        })
        .orderBy("id")
        .forNoKeyUpdate()
        .execute();
      return rows.map(toUser);
    },
    // Not FOR UPDATE: that would also hold back the key-share locks of rows that refer to the account
    // (a cart line added, an audit entry), and an add to cart holding its line would deadlock a checkout.
    async holdForCheckout(id) {
      return (await heldForCheckout(db, id)).length > 0;
    },
    async findByEmail(email) {
      const row = await db.selectFrom("users").selectAll().where("email", "=", normalizeEmail(email)).executeTakeFirst();
      return row ? toUser(row) : null;
    },
    async create(u) {
      try {
        await db
          .insertInto("users")
          .values({
            id: u.id,
            email: normalizeEmail(u.email),
            name: u.name,
            password_hash: u.passwordHash,
            role: u.role,
            image: u.image,
            is_email_verified: u.isEmailVerified,
            created_at: u.createdAt,
            updated_at: u.updatedAt,
          })
          .execute();
      } catch (error) {
        if (violatedUniqueConstraint(error) === "users_email_key") {
          throw new DomainError("auth.email_taken", "An account with this email already exists");
        }
        throw error;
      }
    },
    async update(id, c) {
      const row = await db
        .updateTable("users")
        .set({
          name: c.name,
          image: c.image,
          role: c.role,
          password_hash: c.passwordHash,
          is_email_verified: c.isEmailVerified,
          updated_at: c.updatedAt,
        })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      return row ? toUser(row) : null;
    },
    async findFundraiserId(userId) {
      const row = await db.selectFrom("fundraisers").select("id").where("user_id", "=", userId).executeTakeFirst();
      return row?.id ?? null;
    },
    async findByIdentity(provider, providerAccountId) {
      const row = await db
        .selectFrom("user_identities")
        .innerJoin("users", "users.id", "user_identities.user_id")
        .selectAll("users")
        .where("user_identities.provider", "=", provider)
        .where("user_identities.provider_account_id", "=", providerAccountId)
        .executeTakeFirst();
      return row ? toUser(row) : null;
    },
    async listAccounts(filter, page) {
      const [items, total] = await Promise.all([accountsPage(db, filter, page), countAccounts(db, filter)]);
      return { items, total };
    },
    findAccount: (id) => findAccount(db, id),
    everyAccount: (filter, batchSize) => everyAccount(db, filter, batchSize),
    async linkIdentity(provider, providerAccountId, userId) {
      await db
        .insertInto("user_identities")
        .values({ provider, provider_account_id: providerAccountId, user_id: userId })
        .onConflict((oc) => oc.columns(["provider", "provider_account_id"]).doNothing())
        .execute();
    },
  };
}
