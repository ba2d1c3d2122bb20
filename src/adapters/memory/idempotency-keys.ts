import type { IdempotencyKeys, KeptResponse } from "../../application/ports/idempotency.ts";

export interface StoredKey {
  userId: string;
  key: string;
  fingerprint: string;
  response: KeptResponse | null;
  createdAt: Date;
  expiresAt: Date;
}

export function createMemoryIdempotencyKeys(keys: Map<string, StoredKey>): IdempotencyKeys {
  const id = (userId: string, key: string) => `${userId}\n${key}`;
  return {
    async claim({ userId, key, fingerprint, now, expiresAt, staleBefore }) {
      const found = keys.get(id(userId, key));
      const free = !found || found.expiresAt <= now || (found.response === null && found.createdAt < staleBefore);
      if (free) {
        keys.set(id(userId, key), { userId, key, fingerprint, response: null, createdAt: now, expiresAt });
        return { kind: "claimed", claimedAt: now };
      }
      if (found.fingerprint !== fingerprint) return { kind: "mismatch" };
      return found.response ? { kind: "replay", response: structuredClone(found.response) } : { kind: "in_flight" };
    },
    async keep(userId, key, claimedAt, response) {
      const found = keys.get(id(userId, key));
      if (found?.createdAt.getTime() === claimedAt.getTime()) found.response = structuredClone(response);
    },
    async release(userId, key, claimedAt) {
      const found = keys.get(id(userId, key));
      if (found?.response === null && found.createdAt.getTime() === claimedAt.getTime()) keys.delete(id(userId, key));
    },
    async purgeExpired(now) {
      let purged = 0;
      for (const [k, stored] of keys) if (stored.expiresAt <= now && keys.delete(k)) purged++;
      return purged;
    },
  };
}
