import type { SuppressionList } from "../../application/ports/mail.ts";
import type { Db } from "./database.ts";

export function createPgSuppressionList(db: Db): SuppressionList {
  return {
    async add(email, reason, at) {
      await db
        .insertInto("email_suppressions")
        .values({ email: email.toLowerCase(), reason, created_at: at })
        .onConflict((oc) => oc.column("email").doNothing())
        .execute();
    },
    async has(email) {
      return (await db.selectFrom("email_suppressions").select("email").where("email", "=", email.toLowerCase()).executeTakeFirst()) !== undefined;
    },
  };
}
