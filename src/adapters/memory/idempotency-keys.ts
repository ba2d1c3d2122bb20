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
        return { kind: "claimed" };
      }
      if (found.fingerprint !== fingerprint) return { kind: "mismatch" };
      return found.response ? { kind: "replay", response: structuredClone(found.response) } : { kind: "in_flight" };
    },
    async keep(userId, key, response) {
      const found = keys.get(id(userId, key));
      if (found) found.response = structuredClone(response);
    },
    async release(userId, key) {
      const found = keys.get(id(userId, key));
      if (found?.response === null) keys.delete(id(userId, key));
    },
    async purgeExpired(now) {
      let purged = 0;
      for (const [k, stored] of keys) if (stored.expiresAt <= now && keys.delete(k)) purged++;
      return purged;
    },
  };
}
