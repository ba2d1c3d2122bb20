import { afterAll, beforeAll, expect, test } from "bun:test";
import { finishProviderSignIn } from "../../src/application/auth/provider-sign-in.ts";
import type { ExternalProfile, IdentityProvider } from "../../src/application/ports/identity.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const origin = { ipAddress: "203.0.113.9", userAgent: "test-agent" };

test("two first sign-ins of one GitHub account at once (two tabs) both sign in, to one account: the later is a sign-in, not a 409 (found by an attack: 18 of 20 failed)", async () => {
  const deps = createPgDeps(database.db);
  for (let round = 0; round < 10; round++) {
    const profile: ExternalProfile = {
      provider: "github",
      providerAccountId: `race-${round}`,
      email: `Racer${round}@Example.com`,
      emailVerified: true,
      name: "Racer",
      image: null,
    };
    // Both callbacks hold their profile until both have it, so their transactions run side by side.
    let arrived = 0;
    const bothArrived = Promise.withResolvers<void>();
    const provider: IdentityProvider = {
      id: "github",
      name: "GitHub",
      usesPkce: false,
      callbackMethod: "GET",
      begin: () => ({ url: new URL("https://github.com/login/oauth/authorize"), state: "state", codeVerifier: null }),
      fetchProfile: async () => {
        if (++arrived === 2) bothArrived.resolve();
        await bothArrived.promise;
        return profile;
      },
    };
    const signIn = () =>
      finishProviderSignIn(
        { ...deps, identityProviders: new Map([["github", provider]]) },
        { providerId: "github", code: "c", codeVerifier: null, extra: {} },
        origin,
      );
    const sessions = await Promise.all([signIn(), signIn()]);
    const ids = sessions.map((s) => s.user.id);
    expect({ round, same: ids[0] === ids[1] }).toEqual({ round, same: true });
    const accounts = await database.db.selectFrom("users").select("id").where("email", "=", `racer${round}@example.com`).execute();
    expect(accounts.map((a) => a.id)).toEqual([ids[0]!]);
    const events = await database.db.selectFrom("audit_log").select("action").where("user_id", "=", ids[0]!).orderBy("action").execute();
    expect(events.map((e) => e.action)).toEqual(["auth.login", "auth.register"]);
  }
});
