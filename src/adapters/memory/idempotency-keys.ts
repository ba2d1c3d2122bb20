import type { IdempotencyKeys, KeptResponse } from "../../application/ports/idempotency.ts";

export interface StoredKey {
  userId: string;
  key: string;
  fingerprint: string;
  response: KeptResponse | null;
  orderId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export function createMemoryIdempotencyKeys(keys: Map<string, StoredKey>): IdempotencyKeys {
  const id = (userId: string, key: string) => `${userId}\n${key}`;
  const claimOf = (userId: string, key: string, claimedAt: Date) => {
    const found = keys.get(id(userId, key));
    return found?.createdAt.getTime() === claimedAt.getTime() ? found : undefined;
  };
  return {
    async claim({ userId, key, fingerprint, now, expiresAt, staleBefore }) {
      const found = keys.get(id(userId, key));
      const free = !found || found.expiresAt <= now || (found.response === null && found.orderId === null && found.createdAt < staleBefore);
      if (free) {
        keys.set(id(userId, key), { userId, key, fingerprint, response: null, orderId: null, createdAt: now, expiresAt });
        return { kind: "claimed", claimedAt: now };
      }
      if (found.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (found.response) return { kind: "replay", response: structuredClone(found.response) };
      if (found.orderId) return { kind: "order_made", claimedAt: new Date(found.createdAt), orderId: found.orderId };
      return { kind: "in_flight" };
    },
    async recordOrder(userId, key, claimedAt, orderId) {
      const found = claimOf(userId, key, claimedAt);
      if (found) found.orderId = orderId;
    },
    async keep(userId, key, claimedAt, response) {
      const found = claimOf(userId, key, claimedAt);
      if (found) found.response = structuredClone(response);
    },
    async release(userId, key, claimedAt) {
      const found = claimOf(userId, key, claimedAt);
      if (found?.response === null && found.orderId === null) keys.delete(id(userId, key));
    },
    async forgetOrder(orderId) {
      for (const [k, stored] of keys) if (stored.orderId === orderId && stored.response === null) keys.delete(k);
    },
    async purgeExpired(now, limit) {
      let purged = 0;
      for (const [k, stored] of keys) if (purged < limit && stored.expiresAt <= now && keys.delete(k)) purged++;
      return purged;
    },
  };
}
