import { sql } from "kysely";
import type { IdempotencyKeys } from "../../application/ports/idempotency.ts";
import type { Db } from "./database.ts";

export function createPgIdempotencyKeys(db: Db): IdempotencyKeys {
  return {
    async claim({ userId, key, fingerprint, now, expiresAt, staleBefore }) {
      // New, expired, or left running by a request that never finished: the key is this request's.
      const claimed = await db
        .insertInto("idempotency_keys")
        .values({ user_id: userId, key, fingerprint, response_status: null, response_body: null, order_id: null, created_at: now, expires_at: expiresAt })
        .onConflict((oc) =>
          oc
            .columns(["user_id", "key"])
            .doUpdateSet((eb) => ({
              fingerprint: eb.ref("excluded.fingerprint"),
              response_status: null,
              response_body: null,
              order_id: null,
              created_at: eb.ref("excluded.created_at"),
              expires_at: eb.ref("excluded.expires_at"),
            }))
            .where((eb) =>
              eb.or([
                eb("idempotency_keys.expires_at", "<=", now),
                eb.and([
                  eb("idempotency_keys.response_status", "is", null),
                  eb("idempotency_keys.order_id", "is", null),
                  eb("idempotency_keys.created_at", "<", staleBefore),
                ]),
              ]),
            ),
        )
        .returning("key")
        .execute();
      if (claimed.length > 0) return { kind: "claimed", claimedAt: now };
      const held = await db
        .selectFrom("idempotency_keys")
        .select(["fingerprint", "response_status", "response_body", "order_id", "created_at"])
        .where("user_id", "=", userId)
        .where("key", "=", key)
        .executeTakeFirst();
      // Released between the two statements: its request failed, and a retry will find the key free.
      if (!held) return { kind: "in_flight" };
      if (held.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (held.response_status !== null) return { kind: "replay", response: { status: held.response_status, body: held.response_body } };
      if (held.order_id !== null) return { kind: "order_made", claimedAt: held.created_at, orderId: held.order_id };
      return { kind: "in_flight" };
    },

    async recordOrder(userId, key, claimedAt, orderId) {
      await db
        .updateTable("idempotency_keys")
        .set({ order_id: orderId })
        .where("user_id", "=", userId)
        .where("key", "=", key)
        .where("created_at", "=", claimedAt)
        .execute();
    },

    async keep(userId, key, claimedAt, response) {
      await db
        .updateTable("idempotency_keys")
        .set({ response_status: response.status, response_body: JSON.stringify(response.body) })
        .where("user_id", "=", userId)
        .where("key", "=", key)
        .where("created_at", "=", claimedAt)
        .execute();
    },

    async release(userId, key, claimedAt) {
      await db
        .deleteFrom("idempotency_keys")
        .where("user_id", "=", userId)
        .where("key", "=", key)
        .where("created_at", "=", claimedAt)
        .where("response_status", "is", null)
        .where("order_id", "is", null)
        .execute();
    },

    async forgetOrder(orderId) {
      await db.deleteFrom("idempotency_keys").where("order_id", "=", orderId).where("response_status", "is", null).execute();
    },

    async purgeExpired(now, limit) {
      const expired = db.selectFrom("idempotency_keys").select(sql`ctid`.as("row")).where("expires_at", "<=", now).orderBy("expires_at").limit(limit);
      // The oldest first, from the index by expiry, deleted by their rows' addresses: a batch never reads the
      // keys still kept, however many, nor joins the whole table (as "(user_id, key) in (…)" was planned).
      // Still expired when deleted: a key claimed again meanwhile (a new request under it, its checkout
      // running) is a new row at another address, which PostgreSQL's minor releases before November
      // 2025 (15.14, say) deleted all the same, not rechecking the address after the wait for the
      // claim's lock (found by a review).
      const result = await db
        .deleteFrom("idempotency_keys")
        .where(sql<boolean>`ctid = any(array(${expired}))`)
        .where("expires_at", "<=", now)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
