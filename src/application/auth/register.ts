import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type User, newUser, normalizeEmail } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { Deps } from "../ports/index.ts";
import { assertNewPassword, hashPassword } from "./new-password.ts";
import { welcomeMail } from "./welcome-mail.ts";

export interface Registration {
  email: string;
  password: string;
  name?: string;
}

/**
 * A new CUSTOMER account. The account, its audit entry and the welcome mail land in one transaction;
 * the mail is delivered from the outbox afterwards, so a mail failure never fails a registration.
 * `client`: who asks, for the hasher's fair line (decisions §15).
 */
export async function register(
  deps: Pick<Deps, "uow" | "hasher" | "commonPasswords" | "ids" | "clock">,
  input: Registration,
  origin: RequestOrigin,
  shopUrl: string,
  client?: string,
): Promise<User> {
  assertNewPassword(deps, input.password, "password");
  const email = normalizeEmail(input.email);
  // Checked before hashing so a taken e-mail answers at once; the unique index still decides races.
  if (await deps.uow.read((db) => db.users.findByEmail(email))) throw new DomainError("auth.email_taken", "An account with this email already exists");

  const now = deps.clock.now();
  const user = newUser({
    id: deps.ids.next(),
    email,
    name: input.name,
    passwordHash: await hashPassword(deps.hasher, input.password, client),
    role: "CUSTOMER",
    isEmailVerified: false,
    at: now,
  });
  await deps.uow.transaction(async (tx) => {
    await tx.users.create(user);
    await recordAudit(tx, deps, { userId: user.id, action: "auth.register", entityType: "user", entityId: user.id, changes: { email }, origin });
    await tx.outbox.enqueue({ ...welcomeMail(user, shopUrl), id: deps.ids.next(), createdAt: now });
  });
  return user;
}
