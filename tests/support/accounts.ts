import { SignJWT } from "jose";
import type { Repositories } from "../../src/application/ports/index.ts";
import type { UserRole } from "../../src/domain/user.ts";
import { SESSION_COOKIE, TEST_SECRET, type TestApp } from "./http.ts";

/** The `name=value` pair of the session cookie a response set, or null. */
export function sessionCookieOf(headers: Headers): string | null {
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(";");
    if (pair?.startsWith(`${SESSION_COOKIE}=`)) return pair;
  }
  return null;
}

/** Registers an account (role set directly in the store), signs it in, and returns its cookie. */
export async function signedInAs(
  t: Pick<TestApp, "call"> & { deps: { repos: Repositories } },
  role: UserRole = "CUSTOMER",
  email = `${role.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}@example.com`,
) {
  const password = "correct horse battery";
  const registered = await t.call("POST", "/api/auth/register", { body: { email, password, name: role } });
  if (registered.status !== 201) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
  const id: string = registered.body.user.id;
  if (role !== "CUSTOMER") await t.deps.repos.users.update(id, { role, updatedAt: new Date() });
  const signIn = await t.call("POST", "/api/auth/callback/credentials", { body: { email, password } });
  const cookie = sessionCookieOf(signIn.headers);
  if (!cookie) throw new Error("no session cookie");
  const token = cookie.slice(cookie.indexOf("=") + 1);
  return { id, email, password, cookie, token, sid: payloadOf(token).sid as string, headers: { cookie } };
}

/** The claims of a token, unchecked. */
export function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());
}

/**
 * A token signed like ours but with chosen claims, key or times (seconds relative to the test
 * clock's `now`; `iat: null` leaves the claim out), for tampering tests.
 */
export function craftToken(claims: Record<string, unknown>, now: Date, options: { secret?: string; iat?: number | null; exp?: number } = {}) {
  const seconds = Math.floor(now.getTime() / 1000);
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" });
  if (options.iat !== null) jwt = jwt.setIssuedAt(seconds + (options.iat ?? 0));
  jwt = jwt.setExpirationTime(seconds + (options.exp ?? 3600));
  return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_SECRET));
}
