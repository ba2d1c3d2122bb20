import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createIdentityProviders } from "../../src/adapters/identity/index.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { sessionCookieOf } from "../support/accounts.ts";
import { CookieJar } from "../support/cookie-jar.ts";
import { TEST_PUBLIC_URL, type TestApp, createTestApp } from "../support/http.ts";
import { type ProviderStub, appleSigningKey, json, startUnrulyProvider, stubProviders, tokenResponse } from "../support/provider-stub.ts";

const GITHUB_TOKEN = "https://github.com/login/oauth/access_token";
const GOOGLE_TOKEN = "https://oauth2.googleapis.com/token";
const APPLE_TOKEN = "https://appleid.apple.com/auth/token";
const FACEBOOK_TOKEN = "https://graph.facebook.com/v16.0/oauth/access_token";

let stub: ProviderStub | undefined;
let t: TestApp;

beforeEach(async () => {
  const apple = await appleSigningKey();
  const providers = createIdentityProviders(
    {
      github: { clientId: "gh-client", clientSecret: "gh-secret" },
      google: { clientId: "g-client", clientSecret: "g-secret" },
      apple: { clientId: "com.example.shop", teamId: "TEAM", keyId: "KEY", privateKey: apple.pem },
    },
    TEST_PUBLIC_URL,
  );
  t = createTestApp(createMemoryDeps({ identityProviders: providers }));
});
afterEach(() => stub?.restore());

/** Starts sign-in (on the shop of these tests unless told) and returns the state the provider would echo back plus the state cookie. */
async function begin(provider: string, app: TestApp = t) {
  const res = await app.call("GET", `/api/auth/signin/${provider}`);
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location") ?? "");
  const stateCookie = res.headers.getSetCookie().find((c) => c.startsWith("storefront.oauth-state="));
  return { location, state: location.searchParams.get("state") ?? "", cookie: stateCookie?.split(";")[0] ?? "", setCookie: stateCookie ?? "" };
}

function githubAnswers(email: string, verified: boolean) {
  stub = stubProviders({
    [GITHUB_TOKEN]: () => tokenResponse(),
    "https://api.github.com/user": () => json({ id: 4242, login: "ada", name: "Ada", avatar_url: "https://avatars.example.com/ada.png" }),
    "https://api.github.com/user/emails": () => json([{ email, primary: true, verified }]),
  });
}

describe("OAuth sign-in", () => {
  test("GitHub: redirect with state in a short-lived HttpOnly cookie, callback creates the account and a session", async () => {
    const { location, state, cookie, setCookie } = await begin("github");
    expect(location.origin + location.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(location.searchParams.get("redirect_uri")).toBe(`${TEST_PUBLIC_URL}/api/auth/callback/github`);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("Max-Age=600");

    githubAnswers("Ada@Example.com", true);
    const res = await t.call("GET", `/api/auth/callback/github?code=the-code&state=${state}`, { headers: { cookie } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${TEST_PUBLIC_URL}/`);
    const session = sessionCookieOf(res.headers);
    // The state cookie is spent: cleared in the same answer that sets the session cookie.
    expect(res.headers.getSetCookie().find((c) => c.startsWith("storefront.oauth-state="))).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
    const me = await t.call("GET", "/api/auth/session", { headers: { cookie: session ?? "" } });
    expect(me.body.user).toMatchObject({ email: "ada@example.com", role: "CUSTOMER", image: "https://avatars.example.com/ada.png" });
    expect(stub?.to(GITHUB_TOKEN)[0]?.form?.get("code")).toBe("the-code");
  });

  test("Google uses PKCE: the verifier kept in the cookie reaches the token endpoint", async () => {
    const { location, state, cookie } = await begin("google");
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    stub = stubProviders({ [GOOGLE_TOKEN]: () => tokenResponse({ sub: "g-1", email: "gina@example.com", email_verified: true, name: "Gina" }) });
    const res = await t.call("GET", `/api/auth/callback/google?code=c&state=${state}`, { headers: { cookie } });
    expect(res.status).toBe(302);
    const verifier = stub.to(GOOGLE_TOKEN)[0]?.form?.get("code_verifier") ?? "";
    const challenge = new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
    expect(challenge).toBe(location.searchParams.get("code_challenge") ?? "");
  });

  test("Apple answers with a form POST; its state cookie is SameSite=None; Secure", async () => {
    const { location, state, cookie, setCookie } = await begin("apple");
    expect(location.searchParams.get("response_mode")).toBe("form_post");
    expect(setCookie).toMatch(/SameSite=None/i);
    expect(setCookie).toContain("Secure");
    stub = stubProviders({ [APPLE_TOKEN]: () => tokenResponse({ sub: "apple-1", email: "ann@privaterelay.example", email_verified: "true" }) });
    const form = new URLSearchParams({ code: "c", state, user: JSON.stringify({ name: { firstName: "Ann", lastName: "Lee" } }) });
    const res = await t.call("POST", "/api/auth/callback/apple", {
      body: form.toString(),
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(302);
    const user = [...t.deps.state.users.values()][0];
    expect(user).toMatchObject({ email: "ann@privaterelay.example", name: "Ann Lee", passwordHash: null, isEmailVerified: true });
  });

  test("each provider returns one way only: a POST for GitHub or a GET for Apple is 405 with Allow, and the state stays usable", async () => {
    const github = await begin("github");
    const form = (state: string) => new URLSearchParams({ code: "c", state }).toString();
    const posted = await t.call("POST", "/api/auth/callback/github", {
      body: form(github.state),
      headers: { cookie: github.cookie, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(posted.body.error).toBe("Sign-in with github returns with GET");
    githubAnswers("ada@example.com", true);
    const fetched = await t.call("GET", `/api/auth/callback/github?code=c&state=${github.state}`, { headers: { cookie: github.cookie } });
    expect(fetched.status).toBe(302);

    const apple = await begin("apple");
    const res = await t.call("GET", `/api/auth/callback/apple?code=c&state=${apple.state}`, { headers: { cookie: apple.cookie } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    expect(stub?.to(APPLE_TOKEN)).toHaveLength(0);
  });

  test("an unverified provider e-mail does not take over a password account", async () => {
    await t.call("POST", "/api/auth/register", { body: { email: "ada@example.com", password: "correct horse" } });
    const { state, cookie } = await begin("github");
    githubAnswers("ada@example.com", false);
    const res = await t.call("GET", `/api/auth/callback/github?code=c&state=${state}`, { headers: { cookie } });
    expect(res.status).toBe(400);
    expect(sessionCookieOf(res.headers)).toBeNull();
  });

  test("Apple's posted name is kept only as a name the shop would take: anything else leaves the account nameless, and signs in all the same (found by an attack)", async () => {
    const hostile = ["Evil\u009b31m\nInjected line", "A".repeat(3000), "Nul\u0000Name", "Sur\ud800rogate"];
    for (const [i, firstName] of hostile.entries()) {
      const { state, cookie } = await begin("apple");
      stub?.restore();
      stub = stubProviders({ [APPLE_TOKEN]: () => tokenResponse({ sub: `apple-${i}`, email: `apple${i}@example.com`, email_verified: "true" }) });
      // As the browser posts it: the name as JSON text, its characters escaped.
      const user = JSON.stringify({ name: { firstName, lastName: "X" } }).replace(
        /[^\x20-\x7e]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      );
      const res = await t.call("POST", "/api/auth/callback/apple", {
        body: new URLSearchParams({ code: "c", state, user }).toString(),
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      });
      expect(res.status).toBe(302);
      const me = await t.call("GET", "/api/users/me", { headers: { cookie: sessionCookieOf(res.headers) ?? "" } });
      expect(me.body.data).toMatchObject({ email: `apple${i}@example.com`, name: null });
    }
  });

  test("a provider's e-mail that only lowercases to another's address (the Kelvin sign) takes no account: 400, and the owner's password still works (found by an attack)", async () => {
    const password = "kate's own password 1";
    await t.call("POST", "/api/auth/register", { body: { email: "kate@victim.example", password } });
    const { state, cookie } = await begin("google");
    stub = stubProviders({ [GOOGLE_TOKEN]: () => tokenResponse({ sub: "g-kelvin", email: "\u212Aate@victim.example", email_verified: true }) });
    const res = await t.call("GET", `/api/auth/callback/google?code=c&state=${state}`, { headers: { cookie } });
    expect([res.status, res.body.error]).toEqual([400, "The email address of your account with this provider cannot be used here"]);
    expect(sessionCookieOf(res.headers)).toBeNull();
    expect((await t.call("POST", "/api/auth/callback/credentials", { body: { email: "kate@victim.example", password } })).status).toBe(200);
    expect(t.deps.state.users.size).toBe(1);
  });

  test("an unverified provider e-mail opens no account", async () => {
    const { state, cookie } = await begin("github");
    githubAnswers("new@example.com", false);
    const res = await t.call("GET", `/api/auth/callback/github?code=c&state=${state}`, { headers: { cookie } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Your account with this provider has no verified email address");
    expect(t.deps.state.users.size).toBe(0);
  });

  test("a GitHub profile of odd types never answers 500: the odd fields are dropped, and an e-mail entry that is no verified string opens no account (found by an attack)", async () => {
    const answers = (entry: Record<string, unknown>) => {
      stub?.restore();
      stub = stubProviders({
        [GITHUB_TOKEN]: () => tokenResponse(),
        "https://api.github.com/user": () => json({ id: 4242, login: "ada", name: 42, email: "public@example.com", avatar_url: { evil: true } }),
        "https://api.github.com/user/emails": () => json([{ primary: true, verified: true, ...entry }]),
      });
    };
    for (const entry of [{ email: ["public@example.com"] }, {}]) {
      const { state, cookie } = await begin("github");
      answers(entry);
      const res = await t.call("GET", `/api/auth/callback/github?code=c&state=${state}`, { headers: { cookie } });
      expect([res.status, res.body.error]).toEqual([400, "Your account with this provider has no verified email address"]);
      expect(t.deps.state.users.size).toBe(0);
    }
    const { state, cookie } = await begin("github");
    answers({ email: "ada@example.com" });
    const res = await t.call("GET", `/api/auth/callback/github?code=c&state=${state}`, { headers: { cookie } });
    expect(res.status).toBe(302);
    expect([...t.deps.state.users.values()][0]).toMatchObject({ email: "ada@example.com", name: "ada", image: null, isEmailVerified: true });
  });

  test("a Facebook profile of odd types never answers 500: an e-mail that is no string opens no account, a name that is none is dropped (found by an attack)", async () => {
    const facebook = createTestApp(
      createMemoryDeps({ identityProviders: createIdentityProviders({ facebook: { clientId: "fb", clientSecret: "fb-secret" } }, TEST_PUBLIC_URL) }),
    );
    const signIn = async (me: Record<string, unknown>) => {
      const { state, cookie } = await begin("facebook", facebook);
      stub?.restore();
      stub = stubProviders({ [FACEBOOK_TOKEN]: () => tokenResponse(), "https://graph.facebook.com/me": () => json(me) });
      return facebook.call("GET", `/api/auth/callback/facebook?code=c&state=${state}`, { headers: { cookie } });
    };
    for (const email of [42, ["fay@example.com"]]) {
      const res = await signIn({ id: "fb-1", name: "Fay", email });
      expect([res.status, res.body.error]).toEqual([400, "Your account with this provider has no verified email address"]);
    }
    const res = await signIn({ id: "fb-1", name: 42, email: "fay@example.com", picture: { data: { url: ["https://fb/fay.jpg"] } } });
    expect(res.status).toBe(302);
    expect([...facebook.deps.state.users.values()]).toEqual([expect.objectContaining({ email: "fay@example.com", name: null, image: null })]);
  });

  test("a missing or wrong state is 400 and no provider is called", async () => {
    const { state, cookie } = await begin("github");
    githubAnswers("ada@example.com", true);
    for (const [query, headers] of [
      [`code=c&state=${state}`, {}],
      [`code=c&state=forged`, { cookie }],
      ["code=c", { cookie }],
    ] as const) {
      const res = await t.call("GET", `/api/auth/callback/github?${query}`, { headers });
      expect(res.status).toBe(400);
    }
    const other = await begin("google");
    const crossed = await t.call("GET", `/api/auth/callback/github?code=c&state=${other.state}`, { headers: { cookie: other.cookie } });
    expect(crossed.status).toBe(400);
    expect(stub?.requests).toHaveLength(0);
  });

  /** Sends a request as a browser would: the jar picks the cookies by path and takes the answer's. */
  async function browse(jar: CookieJar, method: string, target: string, form?: URLSearchParams) {
    const path = new URL(target, TEST_PUBLIC_URL).pathname;
    const headers: Record<string, string> = { cookie: jar.header(path) };
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await t.call(method, target, { headers, body: form?.toString() });
    jar.store(path, res.headers);
    return res;
  }

  test("a state is used once: in a browser's cookie jar the state cookie is gone after its callback, and the same callback again is 400", async () => {
    const jar = new CookieJar();
    const started = await browse(jar, "GET", "/api/auth/signin/github");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state");
    githubAnswers("ada@example.com", true);
    const callback = `/api/auth/callback/github?code=c&state=${state}`;
    expect((await browse(jar, "GET", callback)).status).toBe(302);
    expect(jar.pathsOf("storefront.oauth-state")).toEqual([]);

    const again = await browse(jar, "GET", callback);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("Invalid or expired sign-in state; please start again");
    expect(stub?.to(GITHUB_TOKEN)).toHaveLength(1);
  });

  test("Apple's form POST spends its state the same way: the second POST with it is 400", async () => {
    const jar = new CookieJar();
    const started = await browse(jar, "GET", "/api/auth/signin/apple");
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    stub = stubProviders({ [APPLE_TOKEN]: () => tokenResponse({ sub: "apple-1", email: "ann@privaterelay.example", email_verified: "true" }) });
    const form = new URLSearchParams({ code: "c", state });
    expect((await browse(jar, "POST", "/api/auth/callback/apple", form)).status).toBe(302);
    expect(jar.pathsOf("storefront.oauth-state")).toEqual([]);

    expect((await browse(jar, "POST", "/api/auth/callback/apple", form)).status).toBe(400);
    expect(stub.to(APPLE_TOKEN)).toHaveLength(1);
  });

  test("an unconfigured provider is 404; /providers lists only configured ones", async () => {
    expect((await t.call("GET", "/api/auth/signin/facebook")).status).toBe(404);
    expect((await t.call("GET", "/api/auth/callback/facebook?code=c&state=s")).status).toBe(404);
    const providers = await t.call("GET", "/api/auth/providers");
    expect(Object.keys(providers.body).sort()).toEqual(["apple", "credentials", "github", "google"]);
    expect(providers.body.github).toMatchObject({ type: "oauth", signinUrl: `${TEST_PUBLIC_URL}/api/auth/signin/github` });
  });
});

describe("a provider that hangs, drips or answers too much (found by an attack)", () => {
  const host = startUnrulyProvider();
  afterAll(() => host.stop());

  test("its callback is 400 Sign-in with GitHub failed within the deadline, and no account or session is made", async () => {
    const limits = { timeoutMs: 300, maxBytes: 64 * 1024 };
    const github = createTestApp(
      createMemoryDeps({ identityProviders: createIdentityProviders({ github: { clientId: "gh", clientSecret: "gh-secret" } }, TEST_PUBLIC_URL, limits) }),
    );
    const user = () => json({ id: 4242, login: "ada", email: "ada@example.com" });
    const emails = () => json([{ email: "ada@example.com", primary: true, verified: true }]);
    for (const how of ["hang", "drip", "huge", "huge-length"] as const) {
      for (const answers of [
        { [GITHUB_TOKEN]: host.answers(how) },
        { [GITHUB_TOKEN]: () => tokenResponse(), "https://api.github.com/user": host.answers(how), "https://api.github.com/user/emails": emails },
      ]) {
        const { state, cookie } = await begin("github", github);
        stub?.restore();
        stub = stubProviders({ "https://api.github.com/user": user, "https://api.github.com/user/emails": emails, ...answers });
        const before = performance.now();
        const res = await github.call("GET", `/api/auth/callback/github?code=c&state=${state}`, { headers: { cookie } });
        expect([how, res.status, res.body, performance.now() - before < 5_000]).toEqual([
          how,
          400,
          { error: "Sign-in with GitHub failed", details: { provider: "github" } },
          true,
        ]);
        expect(sessionCookieOf(res.headers)).toBeNull();
      }
    }
    expect(github.deps.state.users.size).toBe(0);
  });
});

describe("OAuth pre-hijacking over HTTP (decisions §10)", () => {
  test("the squatter's session on this very instance is 401 the moment the owner signs in with Google", async () => {
    const password = "squatter's password";
    await t.call("POST", "/api/auth/register", { body: { email: "victim@example.com", password } });
    const squatter =
      sessionCookieOf((await t.call("POST", "/api/auth/callback/credentials", { body: { email: "victim@example.com", password } })).headers) ?? "";
    expect((await t.call("GET", "/api/users/me", { headers: { cookie: squatter } })).status).toBe(200);

    const { state, cookie } = await begin("google");
    stub = stubProviders({ [GOOGLE_TOKEN]: () => tokenResponse({ sub: "g-victim", email: "victim@example.com", email_verified: true, name: "Victim" }) });
    const owner = sessionCookieOf((await t.call("GET", `/api/auth/callback/google?code=c&state=${state}`, { headers: { cookie } })).headers) ?? "";

    expect((await t.call("GET", "/api/users/me", { headers: { cookie: squatter } })).status).toBe(401);
    expect((await t.call("PUT", "/api/users/me", { body: { name: "Still here?" }, headers: { cookie: squatter } })).status).toBe(401);
    expect((await t.call("POST", "/api/auth/callback/credentials", { body: { email: "victim@example.com", password } })).status).toBe(401);
    expect((await t.call("GET", "/api/users/me", { headers: { cookie: owner } })).body.data).toMatchObject({
      email: "victim@example.com",
      hasPassword: false,
      isEmailVerified: true,
    });
  });
});
