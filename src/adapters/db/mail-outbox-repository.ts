import { type Selectable, sql } from "kysely";
import type { MailOutbox, OutboxMessage, OutboxStatus } from "../../application/ports/mail.ts";
import type { Db } from "./database.ts";
import type { MailOutboxTable } from "./tables.ts";

function toMessage(row: Selectable<MailOutboxTable>): OutboxMessage {
  return {
    id: row.id,
    to: row.recipient,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    status: row.status as OutboxStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    providerMessageId: row.provider_message_id,
    deliveredAt: row.delivered_at,
  };
}

export function createPgMailOutbox(db: Db): MailOutbox {
  return {
    async enqueue(mail) {
      await db
        .insertInto("mail_outbox")
        .values({
          id: mail.id,
          recipient: mail.to,
          subject: mail.subject,
          text_body: mail.text,
          html_body: mail.html,
          next_attempt_at: mail.createdAt,
          created_at: mail.createdAt,
        })
        .execute();
    },

    async claimDue(now, leaseUntil, limit) {
      // One statement, so the lease lands with the claim; skip locked lets a second worker take other rows.
      const rows = await db
        .updateTable("mail_outbox")
        .set({ attempts: sql`attempts + 1`, next_attempt_at: leaseUntil })
        .where("id", "in", (eb) =>
          eb
            .selectFrom("mail_outbox")
            .select("id")
            .where("status", "=", sql.lit("pending")) // a literal, to match the partial index (see backlog)
            .where("next_attempt_at", "<=", now)
            .orderBy("next_attempt_at")
            .orderBy("created_at")
            .orderBy("id")
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returningAll()
        .execute();
      return rows.map(toMessage);
    },

    async release(ids, leaseUntil, at) {
      if (ids.length === 0) return;
      await db
        .updateTable("mail_outbox")
        .set({ attempts: sql`greatest(attempts - 1, 0)`, next_attempt_at: at })
        .where("id", "in", ids)
        .where("status", "=", sql.lit("pending"))
        .where("next_attempt_at", "=", leaseUntil)
        .execute();
    },

    async markSent(id, at, providerMessageId) {
      // The status before, read under the row's lock, so a bounce committing meanwhile is seen, not a snapshot from before it.
      // Joined, not a subquery of the returning clause: that would be read after the update, and see neither version of the row.
      const row = await db
        .with("before", (db) => db.selectFrom("mail_outbox").select(["id", "status"]).where("id", "=", id).forUpdate())
        .updateTable("mail_outbox")
        .from("before")
        .set({ status: "sent", sent_at: at, provider_message_id: providerMessageId })
        .whereRef("mail_outbox.id", "=", "before.id")
        .returning("before.status as was")
        .executeTakeFirst();
      return (row?.was as OutboxStatus | undefined) ?? null;
    },

    async markDelivered(providerMessageId, at) {
      const result = await db.updateTable("mail_outbox").set({ delivered_at: at }).where("provider_message_id", "=", providerMessageId).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async markSuppressed(which) {
      let rows = db.updateTable("mail_outbox").set({ status: "suppressed" });
      rows =
        "id" in which
          ? rows.where("id", "=", which.id)
          : rows.where(sql`lower(recipient)`, "=", which.to.toLowerCase()).where("status", "=", sql.lit("pending"));
      return Number((await rows.executeTakeFirst()).numUpdatedRows);
    },

    async markFailed(id, leaseUntil, error, retryAt) {
      const changes = retryAt ? { next_attempt_at: retryAt } : { status: "failed" };
      const result = await db
        .updateTable("mail_outbox")
        .set({ last_error: error, ...changes })
        .where("id", "=", id)
        .where("status", "=", sql.lit("pending"))
        .where("next_attempt_at", "=", leaseUntil)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async backlog() {
      // Each count reads its own partial index, so the sent messages, nearly all of them, are never read;
      // the statuses are literals, since a prepared statement's generic plan cannot match a partial index to a parameter.
      const count = (status: OutboxStatus) =>
        db
          .selectFrom("mail_outbox")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("status", "=", sql.lit(status));
      const row = await db.selectNoFrom([count("pending").as("pending"), count("failed").as("failed")]).executeTakeFirstOrThrow();
      return { pending: Number(row.pending), failed: Number(row.failed) };
    },

    async list() {
      const rows = await db.selectFrom("mail_outbox").selectAll().orderBy("created_at").orderBy("id").execute();
      return rows.map(toMessage);
    },
  };
}
