import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { ProviderClient } from "../../src/adapters/identity/provider-client.ts";
import { createAppleProvider } from "../../src/adapters/identity/apple.ts";
import { createFacebookProvider } from "../../src/adapters/identity/facebook.ts";
import { createGitHubProvider } from "../../src/adapters/identity/github.ts";
import { createGoogleProvider } from "../../src/adapters/identity/google.ts";
import { createIdentityProviders } from "../../src/adapters/identity/index.ts";
import { DomainError } from "../../src/domain/errors.ts";
import {
  appleSigningKey,
  json,
  type ProviderHandlers,
  type ProviderStub,
  type RecordedRequest,
  startUnrulyProvider,
  stubProviders,
  tokenResponse,
  type Unruly,
} from "../support/provider-stub.ts";

const GOOGLE_TOKEN = "https://oauth2.googleapis.com/token";
const GITHUB_TOKEN = "https://github.com/login/oauth/access_token";
const GITHUB_USER = "https://api.github.com/user";
const GITHUB_EMAILS = "https://api.github.com/user/emails";
const FACEBOOK_TOKEN = "https://graph.facebook.com/v16.0/oauth/access_token";
const FACEBOOK_ME = "https://graph.facebook.com/me";
const APPLE_TOKEN = "https://appleid.apple.com/auth/token";
const ACCESS_TOKEN = "access-token-from-provider";

const client = { clientId: "client-id", clientSecret: "client-secret" };

/**
 * The token request as arctic sends it to each provider (RFC 6749 §4.1.3): a form POST asking for
 * JSON, grant type authorization_code, the client known by HTTP Basic (Google, GitHub) or by fields
 * of the form (Facebook, Apple): a provider refuses a code asked for otherwise.
 */
function expectTokenRequest(request: RecordedRequest | undefined, { basic, clientId = "client-id" }: { basic: boolean; clientId?: string }) {
  expect(request?.method).toBe("POST");
  expect(request?.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
  expect(request?.headers.get("accept")).toBe("application/json");
  expect(request?.form?.get("grant_type")).toBe("authorization_code");
  if (basic) {
    expect(request?.headers.get("authorization")).toBe(`Basic ${Buffer.from("client-id:client-secret").toString("base64")}`);
  } else {
    expect(request?.headers.get("authorization")).toBeNull();
    expect(request?.form?.get("client_id")).toBe(clientId);
  }
}
const redirect = (id: string) => `https://shop.example.com/api/auth/callback/${id}`;
const verifier = "verifier-0123456789-0123456789-0123456789";

let apple: { pem: string; publicKey: CryptoKey };
beforeAll(async () => {
  apple = await appleSigningKey();
});
const appleConfig = () => ({ clientId: "com.example.shop", teamId: "TEAM123", keyId: "KEY456", privateKey: apple.pem });

let stub: ProviderStub | undefined;
afterEach(() => stub?.restore());
const answer = (handlers: ProviderHandlers) => (stub = stubProviders(handlers));

function expectCommonParams(url: URL, id: string) {
  expect(url.searchParams.get("client_id")).toBe(id === "apple" ? "com.example.shop" : "client-id");
  expect(url.searchParams.get("redirect_uri")).toBe(redirect(id));
  expect(url.searchParams.get("state")).toBe("state-123");
  expect(url.searchParams.get("response_type")).toBe("code");
}

async function s256(value: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))).toString("base64url");
}

describe("google", () => {
  const google = () => createGoogleProvider(client, redirect("google"));

  test("sends the user to Google's consent page with a PKCE challenge and the OpenID scopes", async () => {
    const url = google().authorizationUrl("state-123", verifier);
    expect(url.origin + url.pathname).toBe("https://accounts.google.com/o/oauth2/v2/auth");
    expectCommonParams(url, "google");
    expect(url.searchParams.get("scope")).toBe("openid email profile");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toBe(await s256(verifier));
    expect(google().usesPkce).toBe(true);
  });

  test("exchanges the code with its verifier and reads the profile from the id token", async () => {
    const claims = { sub: "g-1", email: "ann@example.com", email_verified: true, name: "Ann", picture: "https://img/ann" };
    answer({ [GOOGLE_TOKEN]: () => tokenResponse(claims) });
    const profile = await google().fetchProfile("code-abc", verifier, {});
    const [token] = stub!.to(GOOGLE_TOKEN);
    expect(token?.form?.get("code")).toBe("code-abc");
    expect(token?.form?.get("code_verifier")).toBe(verifier);
    expect(token?.form?.get("redirect_uri")).toBe(redirect("google"));
    expectTokenRequest(token, { basic: true });
    expect(profile).toEqual({
      provider: "google",
      providerAccountId: "g-1",
      email: "ann@example.com",
      emailVerified: true,
      name: "Ann",
      image: "https://img/ann",
    });
  });

  test("an e-mail Google has not verified is reported as unverified", async () => {
    answer({ [GOOGLE_TOKEN]: () => tokenResponse({ sub: "g-2", email: "bob@example.com", email_verified: false }) });
    const profile = await google().fetchProfile("code", verifier, {});
    expect(profile).toMatchObject({ email: "bob@example.com", emailVerified: false, name: null, image: null });
  });

  test("a picture that is no http(s) URL is dropped, as any other profile's is", async () => {
    answer({ [GOOGLE_TOKEN]: () => tokenResponse({ sub: "g-3", email: "cy@example.com", email_verified: true, picture: "javascript:alert(1)" }) });
    expect(await google().fetchProfile("code", verifier, {})).toMatchObject({ image: null });
  });

  test("an id token without a subject fails the sign-in", async () => {
    answer({ [GOOGLE_TOKEN]: () => tokenResponse({ email: "ann@example.com", email_verified: true }) });
    await expectProviderFailure(google().fetchProfile("code", verifier, {}), "google");
  });

  test("an unreachable Google fails the sign-in", async () => {
    answer({
      [GOOGLE_TOKEN]: () => {
        throw new TypeError("connection refused");
      },
    });
    await expectProviderFailure(google().fetchProfile("code", verifier, {}), "google");
  });
});

describe("github", () => {
  const github = () => createGitHubProvider(client, redirect("github"));
  const user = { id: 4242, login: "ann-hub", name: "Ann", email: "public@example.com", avatar_url: "https://avatars/ann" };
  const emails = [
    { email: "old@example.com", primary: false, verified: true },
    { email: "ann@example.com", primary: true, verified: true },
  ];

  test("sends the user to GitHub's authorize page asking for the profile and e-mail addresses", () => {
    const url = github().authorizationUrl("state-123", null);
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expectCommonParams(url, "github");
    expect(url.searchParams.get("scope")).toBe("read:user user:email");
    expect(url.searchParams.has("code_challenge")).toBe(false);
    expect(github().usesPkce).toBe(false);
  });

  test("exchanges the code, calls the API with the access token and takes the primary e-mail", async () => {
    answer({ [GITHUB_TOKEN]: () => tokenResponse(), [GITHUB_USER]: () => json(user), [GITHUB_EMAILS]: () => json(emails) });
    const profile = await github().fetchProfile("code-abc", null, {});
    expect(stub!.to(GITHUB_TOKEN)[0]?.form?.get("code")).toBe("code-abc");
    expectTokenRequest(stub!.to(GITHUB_TOKEN)[0], { basic: true });
    for (const call of [...stub!.to(GITHUB_USER), ...stub!.to(GITHUB_EMAILS)]) {
      expect(call.headers.get("authorization")).toBe(`Bearer ${ACCESS_TOKEN}`);
      expect(call.headers.get("accept")).toBe("application/vnd.github+json");
      expect(call.headers.get("user-agent")).toBe("storefront");
    }
    expect(stub!.requests.map((r) => r.url.pathname)).toEqual(["/login/oauth/access_token", "/user", "/user/emails"]);
    expect(profile).toEqual({
      provider: "github",
      providerAccountId: "4242",
      email: "ann@example.com",
      emailVerified: true,
      name: "Ann",
      image: "https://avatars/ann",
    });
  });

  test("answers compressed with gzip though asked not to (some hosts and CDNs do) still sign in (found by an attack)", async () => {
    const gzipped = async (answer: Response) =>
      new Response(Bun.gzipSync(new Uint8Array(await answer.arrayBuffer())), { headers: { "content-type": "application/json", "content-encoding": "gzip" } });
    answer({
      [GITHUB_TOKEN]: () => gzipped(tokenResponse()),
      [GITHUB_USER]: () => gzipped(json(user)),
      [GITHUB_EMAILS]: () => gzipped(json(emails)),
    });
    expect(await github().fetchProfile("code-abc", null, {})).toMatchObject({ providerAccountId: "4242", email: "ann@example.com", emailVerified: true });
  });

  test("an unverified primary e-mail is reported as unverified, and the login stands in for a missing name", async () => {
    answer({
      [GITHUB_TOKEN]: () => tokenResponse(),
      [GITHUB_USER]: () => json({ ...user, name: null }),
      [GITHUB_EMAILS]: () => json([{ email: "ann@example.com", primary: true, verified: false }]),
    });
    const profile = await github().fetchProfile("code", null, {});
    expect(profile).toMatchObject({ email: "ann@example.com", emailVerified: false, name: "ann-hub" });
  });

  test("when the e-mail list cannot be read, the public e-mail is used but not trusted", async () => {
    answer({
      [GITHUB_TOKEN]: () => tokenResponse(),
      [GITHUB_USER]: () => json(user),
      [GITHUB_EMAILS]: () => json({ message: "Resource not accessible by integration" }, 403),
    });
    const profile = await github().fetchProfile("code", null, {});
    expect(profile).toMatchObject({ providerAccountId: "4242", email: "public@example.com", emailVerified: false });
  });

  test("fields of the wrong type are dropped, and an e-mail entry that is no verified string vouches for nothing (found by an attack)", async () => {
    const odd = { ...user, name: 42, avatar_url: { evil: true }, email: "public@example.com" };
    for (const entry of [{ email: ["ann@example.com"] }, {}, { email: 7 }, { email: "ann@example.com", verified: "true" }]) {
      stub?.restore();
      answer({
        [GITHUB_TOKEN]: () => tokenResponse(),
        [GITHUB_USER]: () => json(odd),
        [GITHUB_EMAILS]: () => json([{ primary: true, verified: true, ...entry }]),
      });
      const profile = await github().fetchProfile("code", null, {});
      const email = typeof entry.email === "string" ? entry.email : "public@example.com";
      expect(profile).toEqual({ provider: "github", providerAccountId: "4242", email, emailVerified: false, name: "ann-hub", image: null });
    }
  });

  test("a login, e-mail or avatar of the wrong type or form is dropped; an id that is no number fails the sign-in", async () => {
    answer({
      [GITHUB_TOKEN]: () => tokenResponse(),
      [GITHUB_USER]: () => json({ id: 4242, login: { x: 1 }, name: null, email: ["public@example.com"], avatar_url: "javascript:alert(1)" }),
      [GITHUB_EMAILS]: () => json("not a list"),
    });
    expect(await github().fetchProfile("code", null, {})).toMatchObject({ email: null, emailVerified: false, name: null, image: null });
    stub?.restore();
    answer({ [GITHUB_TOKEN]: () => tokenResponse(), [GITHUB_USER]: () => json({ ...user, id: "4242" }), [GITHUB_EMAILS]: () => json(emails) });
    await expectProviderFailure(github().fetchProfile("code", null, {}), "github");
  });

  test("GitHub's way of refusing a code (200 with an error body) fails the sign-in", async () => {
    answer({ [GITHUB_TOKEN]: () => json({ error: "bad_verification_code", error_description: "The code is incorrect" }) });
    await expectProviderFailure(github().fetchProfile("code", null, {}), "github");
    expect(stub!.to(GITHUB_USER)).toHaveLength(0);
  });

  test("a failing user call fails the sign-in", async () => {
    answer({ [GITHUB_TOKEN]: () => tokenResponse(), [GITHUB_USER]: () => json({ message: "Bad credentials" }, 401) });
    await expectProviderFailure(github().fetchProfile("code", null, {}), "github");
  });
});

describe("facebook", () => {
  const facebook = () => createFacebookProvider(client, redirect("facebook"));
  const me = { id: "fb-7", name: "Ann", email: "ann@example.com", picture: { data: { url: "https://fb/ann.jpg" } } };

  test("sends the user to Facebook's login dialog asking for e-mail and public profile", () => {
    const url = facebook().authorizationUrl("state-123", null);
    expect(url.hostname).toBe("www.facebook.com");
    expect(url.pathname).toEndWith("/dialog/oauth");
    expectCommonParams(url, "facebook");
    expect(url.searchParams.get("scope")).toBe("email public_profile");
    expect(facebook().usesPkce).toBe(false);
  });

  test("exchanges the code and reads the profile from the Graph API", async () => {
    answer({ [FACEBOOK_TOKEN]: () => tokenResponse(), [FACEBOOK_ME]: () => json(me) });
    const profile = await facebook().fetchProfile("code-abc", null, {});
    const token = stub!.to(FACEBOOK_TOKEN)[0];
    expect(token?.form?.get("code")).toBe("code-abc");
    expect(token?.form?.get("client_id")).toBe("client-id");
    expectTokenRequest(token, { basic: false });
    expect(token?.form?.get("client_secret")).toBe("client-secret");
    const graph = stub!.to(FACEBOOK_ME)[0];
    expect(graph?.url.searchParams.get("access_token")).toBe(ACCESS_TOKEN);
    expect(graph?.url.searchParams.get("fields")).toBe("id,name,email,picture.type(large)");
    expect(profile).toEqual({
      provider: "facebook",
      providerAccountId: "fb-7",
      email: "ann@example.com",
      emailVerified: true,
      name: "Ann",
      image: "https://fb/ann.jpg",
    });
  });

  test("an account without a confirmed e-mail signs in with no e-mail", async () => {
    answer({ [FACEBOOK_TOKEN]: () => tokenResponse(), [FACEBOOK_ME]: () => json({ id: "fb-8", name: "Bob" }) });
    const profile = await facebook().fetchProfile("code", null, {});
    expect(profile).toMatchObject({ providerAccountId: "fb-8", email: null, emailVerified: false, image: null });
  });
  test("fields of the wrong type are dropped, and an e-mail that is no string is neither kept nor verified (found by an attack)", async () => {
    for (const email of [42, ["ann@example.com"], { value: "ann@example.com" }, null]) {
      stub?.restore();
      answer({
        [FACEBOOK_TOKEN]: () => tokenResponse(),
        [FACEBOOK_ME]: () => json({ id: "fb-9", name: 7, email, picture: { data: { url: { evil: true } } } }),
      });
      const profile = await facebook().fetchProfile("code", null, {});
      expect(profile).toEqual({ provider: "facebook", providerAccountId: "fb-9", email: null, emailVerified: false, name: null, image: null });
    }
    stub?.restore();
    answer({ [FACEBOOK_TOKEN]: () => tokenResponse(), [FACEBOOK_ME]: () => json({ ...me, picture: "https://fb/ann.jpg" }) });
    expect(await facebook().fetchProfile("code", null, {})).toMatchObject({ email: "ann@example.com", emailVerified: true, image: null });
  });
});

describe("apple", () => {
  const appleProvider = () => createAppleProvider(appleConfig(), redirect("apple"));
  const claims = { sub: "apple-9", email: "ann@privaterelay.appleid.com" };

  test("asks Apple for name and e-mail and for the answer as a form POST", () => {
    const provider = appleProvider();
    const url = provider.authorizationUrl("state-123", null);
    expect(url.origin + url.pathname).toBe("https://appleid.apple.com/auth/authorize");
    expectCommonParams(url, "apple");
    expect(url.searchParams.get("scope")).toBe("name email");
    expect(url.searchParams.get("response_mode")).toBe("form_post");
    expect(provider.callbackMethod).toBe("POST");
    expect(provider.usesPkce).toBe(false);
  });

  test("authenticates to Apple with a client secret signed by the configured key", async () => {
    answer({ [APPLE_TOKEN]: () => tokenResponse({ ...claims, email_verified: true }) });
    await appleProvider().fetchProfile("code-abc", null, {});
    const form = stub!.to(APPLE_TOKEN)[0]?.form;
    expect(form?.get("code")).toBe("code-abc");
    expectTokenRequest(stub!.to(APPLE_TOKEN)[0], { basic: false, clientId: "com.example.shop" });
    const [header, payload, signature] = (form?.get("client_secret") ?? "").split(".");
    const decode = (part = "") => JSON.parse(Buffer.from(part, "base64url").toString());
    expect(decode(header)).toMatchObject({ alg: "ES256", kid: "KEY456" });
    expect(decode(payload)).toMatchObject({ iss: "TEAM123", sub: "com.example.shop" });
    const valid = await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      apple.publicKey,
      Buffer.from(signature ?? "", "base64url"),
      new TextEncoder().encode(`${header}.${payload}`),
    );
    expect(valid).toBe(true);
  });

  test("takes the name Apple posts once with the first sign-in", async () => {
    answer({ [APPLE_TOKEN]: () => tokenResponse({ ...claims, email_verified: "true" }) });
    const user = JSON.stringify({ name: { firstName: "Ann", lastName: "Lee" }, email: claims.email });
    const profile = await appleProvider().fetchProfile("code", null, { user });
    expect(profile).toEqual({
      provider: "apple",
      providerAccountId: "apple-9",
      email: "ann@privaterelay.appleid.com",
      emailVerified: true,
      name: "Ann Lee",
      image: null,
    });
  });

  test('an e-mail_verified of "false" is unverified, and a garbled user field only loses the name', async () => {
    answer({ [APPLE_TOKEN]: () => tokenResponse({ ...claims, email_verified: "false" }) });
    const profile = await appleProvider().fetchProfile("code", null, { user: "{not json" });
    expect(profile).toMatchObject({ providerAccountId: "apple-9", emailVerified: false, name: null });
  });
});

const everyProvider: [string, string, () => ProviderClient][] = [
  ["google", GOOGLE_TOKEN, () => createGoogleProvider(client, redirect("google"))],
  ["github", GITHUB_TOKEN, () => createGitHubProvider(client, redirect("github"))],
  ["facebook", FACEBOOK_TOKEN, () => createFacebookProvider(client, redirect("facebook"))],
  ["apple", APPLE_TOKEN, () => createAppleProvider(appleConfig(), redirect("apple"))],
];

test.each(everyProvider)("%s: a code the token endpoint refuses fails the sign-in", async (id, endpoint, make) => {
  answer({ [endpoint]: () => json({ error: "invalid_grant", error_description: "Bad code" }, 400) });
  await expectProviderFailure(make().fetchProfile("stale-code", verifier, {}), id);
  expect(stub!.to(endpoint)).toHaveLength(1);
});

const idTokenProviders: [string, string, () => ProviderClient][] = [
  ["google", GOOGLE_TOKEN, () => createGoogleProvider(client, redirect("google"))],
  ["apple", APPLE_TOKEN, () => createAppleProvider(appleConfig(), redirect("apple"))],
];

test.each(idTokenProviders)(
  "%s: an id token whose subject is missing, empty or no string fails the sign-in; an e-mail that is no string is neither kept nor verified",
  async (id, endpoint, make) => {
    for (const sub of [undefined, "", 42]) {
      stub?.restore();
      answer({ [endpoint]: () => tokenResponse({ sub, email: "ann@example.com", email_verified: true }) });
      await expectProviderFailure(make().fetchProfile("code", verifier, {}), id);
    }
    stub?.restore();
    answer({ [endpoint]: () => tokenResponse({ sub: "id-1", email: ["ann@example.com"], email_verified: true }) });
    expect(await make().fetchProfile("code", verifier, {})).toMatchObject({ providerAccountId: "id-1", email: null, emailVerified: false });
  },
);

test.each(idTokenProviders)(
  "%s: an id token that says nothing of the e-mail's verification, or names no e-mail at all, signs in all the same, its e-mail unverified",
  async (_id, endpoint, make) => {
    for (const claims of [{ sub: "id-2", email: "ann@example.com" }, { sub: "id-2" }]) {
      stub?.restore();
      answer({ [endpoint]: () => tokenResponse(claims) });
      expect(await make().fetchProfile("code", verifier, {})).toMatchObject({ providerAccountId: "id-2", email: claims.email ?? null, emailVerified: false });
    }
  },
);

describe("a provider that hangs, drips or answers too much (found by an attack)", () => {
  const host = startUnrulyProvider();
  afterAll(() => host.stop());
  const limits = { timeoutMs: 300, maxBytes: 64 * 1024 };
  const ok: ProviderHandlers = {
    [GITHUB_TOKEN]: () => tokenResponse(),
    [GITHUB_USER]: () => json({ id: 1, login: "ann", email: "ann@example.com" }),
    [GITHUB_EMAILS]: () => json([{ email: "ann@example.com", primary: true, verified: true }]),
    [FACEBOOK_TOKEN]: () => tokenResponse(),
  };
  const calls: [string, string, () => ProviderClient][] = [
    ["google", GOOGLE_TOKEN, () => createGoogleProvider(client, redirect("google"), limits)],
    ["github", GITHUB_TOKEN, () => createGitHubProvider(client, redirect("github"), limits)],
    ["github", GITHUB_USER, () => createGitHubProvider(client, redirect("github"), limits)],
    ["facebook", FACEBOOK_TOKEN, () => createFacebookProvider(client, redirect("facebook"), limits)],
    ["facebook", FACEBOOK_ME, () => createFacebookProvider(client, redirect("facebook"), limits)],
    ["apple", APPLE_TOKEN, () => createAppleProvider(appleConfig(), redirect("apple"), limits)],
  ];
  const unruly: Unruly[] = ["hang", "drip", "huge", "huge-length"];

  test.each(calls)("%s: %s fails the sign-in within the deadline, and no more of an answer than the size is read", async (id, endpoint, make) => {
    for (const how of unruly) {
      stub?.restore();
      answer({ ...ok, [endpoint]: host.answers(how) });
      const started = performance.now();
      await expectProviderFailure(make().fetchProfile("code", verifier, {}), id);
      // The deadline is 300 ms; the margin is for a loaded machine. Without it, a hang waited minutes.
      expect([how, performance.now() - started < 5_000]).toEqual([how, true]);
    }
    // Dropping the rest closes the connection: the host stops at what the sockets' buffers took (4 to 8 MB seen), not at 50 MB.
    await host.ended("huge");
    expect(host.sent("huge")).toBeLessThan(20 * 1024 * 1024);
  });

  test("github: an e-mail list that hangs costs the verified e-mail, within the same deadline, not the sign-in", async () => {
    answer({ ...ok, [GITHUB_EMAILS]: host.answers("hang") });
    const started = performance.now();
    // A deadline of a second: the token and the profile must come within it before the list's hang.
    const profile = await createGitHubProvider(client, redirect("github"), { ...limits, timeoutMs: 1_000 }).fetchProfile("code", null, {});
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(profile).toMatchObject({ providerAccountId: "1", email: "ann@example.com", emailVerified: false });
  });
});

describe("createIdentityProviders", () => {
  test("offers only the providers that have credentials, each calling back to its own route", () => {
    const providers = createIdentityProviders({ github: client, apple: appleConfig() }, "https://shop.example.com");
    expect([...providers.keys()]).toEqual(["github", "apple"]);
    for (const [id, provider] of providers) {
      const begun = provider.begin();
      expect(begun.url.searchParams.get("redirect_uri")).toBe(redirect(id));
      expect(begun.url.searchParams.get("state")).toBe(begun.state);
    }
  });

  test("every sign-in begins with a fresh state, and a PKCE verifier where the provider uses one", () => {
    const google = createIdentityProviders({ google: client }, "https://shop.example.com").get("google")!;
    const [first, second] = [google.begin(), google.begin()];
    expect(first.state).not.toBe(second.state);
    expect(first.codeVerifier).toMatch(/^[\w-]{43,128}$/);
    expect(first.url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(createIdentityProviders({ github: client }, "https://shop.example.com").get("github")!.begin().codeVerifier).toBeNull();
  });

  test("offers none when nothing is configured", () => {
    expect(createIdentityProviders({}, "https://shop.example.com").size).toBe(0);
  });
});

async function expectProviderFailure(promise: Promise<unknown>, provider: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect(error).toMatchObject({ code: "auth.provider_failed", details: { provider } });
  expect((error as Error).message).not.toContain(ACCESS_TOKEN);
}
