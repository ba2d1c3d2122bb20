import { Elysia } from "elysia";
import { z } from "zod";
import { DomainError } from "../../../domain/errors.ts";
import { emailProblem } from "../../../domain/user.ts";
import { IDENTITY_PROVIDERS, type ProviderId } from "../../../application/ports/identity.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import type { AuthSettings } from "../auth.ts";
import { authPlugin } from "../auth.ts";
import { clientOfRequest } from "../plumbing/rate-limit.ts";
import { JSON_BODY, errorBody, oneLineName, sessionCookie } from "../schemas.ts";
import { oauthRoutes } from "./oauth.ts";

const sessionUserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.string(),
    fundraiserId: z.string().optional(),
    image: z.string().optional(),
  })
  .meta({ id: "SessionUser" });

// The two sign-in forms ignore fields they do not know (decisions §10): NextAuth-style clients send csrfToken, callbackUrl, json.
const credentials = z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(1024) }).meta({ id: "Credentials" });

const registration = z
  .object({
    email: z
      .string()
      .trim()
      .pipe(z.email().max(254))
      // Only for an address zod took: one it refused is one issue, not the same one twice.
      .refine((email) => emailProblem(email) === null, { message: "Invalid email address", when: (payload) => payload.issues.length === 0 }),
    password: z.string().max(1024).describe("8 characters to 72 bytes, not one of the common passwords"),
    name: oneLineName(100)
      .transform((name) => name || undefined)
      .optional()
      .describe("blank is no name, as left out (a form's empty field)"),
  })
  .meta({ id: "Registration" });

const signOutBody = z
  .strictObject({ everywhere: z.boolean().optional().describe("end every session of the account") })
  .nullable()
  .meta({ id: "SignOutRequest" });

export function authRoutes(useCases: UseCases, settings: AuthSettings & { publicUrl: string }) {
  return new Elysia({ name: "routes.auth", prefix: "/auth", detail: { tags: ["Auth"] } })
    .use(authPlugin(useCases, settings))
    .post(
      "/register",
      async ({ body, origin, request, status }) => {
        const user = await useCases.register(body, origin, clientOfRequest(request));
        return status(201, { user: { id: user.id, email: user.email, name: user.name, role: user.role } });
      },
      {
        sameOrigin: true,
        body: registration,
        ...JSON_BODY,
        response: {
          201: z
            .object({ user: sessionUserSchema.pick({ id: true, email: true, name: true, role: true }) })
            .describe("The account made: a CUSTOMER, not yet signed in"),
          400: errorBody,
          403: errorBody,
          409: errorBody,
          503: errorBody,
        },
        detail: { summary: "Create a CUSTOMER account (no session; sign in afterwards)" },
      },
    )
    .post(
      "/callback/credentials",
      async ({ body, origin, request, startSession }) => {
        const session = await useCases.signInWithPassword(body, origin, clientOfRequest(request));
        await startSession(session);
        return { user: session.user };
      },
      {
        sameOrigin: true,
        body: credentials,
        parse: ["json", "urlencoded", "formdata"],
        response: {
          200: z.object({ user: sessionUserSchema }).describe("Signed in: the user; the session token is in the Set-Cookie header"),
          400: errorBody,
          401: errorBody,
          403: errorBody,
          429: errorBody,
          503: errorBody,
        },
        detail: { summary: "Sign in with e-mail and password (JSON or form); sets the session cookie", ...sessionCookie("set") },
      },
    )
    .get("/session", ({ principal, sessionExpires }) => (principal && sessionExpires ? { user: principal.user, expires: sessionExpires.toISOString() } : {}), {
      optionalAuth: true,
      response: {
        200: z
          .object({ user: sessionUserSchema.optional(), expires: z.string().optional() })
          .describe("The session: the user, and when it expires (ISO 8601); {} without a live session"),
      },
      detail: { summary: "The current session, or {} without one" },
    })
    .post(
      "/signout",
      async ({ principal, body, origin, endSession }) => {
        const everywhere = body?.everywhere === true;
        if (everywhere && !principal) throw new DomainError("auth.unauthenticated", "Unauthorized - authentication required");
        if (principal) await useCases.signOut({ id: principal.sessionId, userId: principal.user.id }, everywhere, origin);
        endSession();
        return { success: true as const };
      },
      {
        sameOrigin: true,
        optionalAuth: true,
        body: signOutBody,
        ...JSON_BODY,
        response: {
          200: z
            .object({ success: z.literal(true) })
            .describe("Signed out: the session ended on the server (or every one, with everywhere) and the cookie cleared"),
          400: errorBody,
          401: errorBody,
          403: errorBody,
        },
        detail: {
          summary: "End this session on the server and clear the cookie; { everywhere: true } ends every session of the account",
          ...sessionCookie("clear"),
        },
      },
    )
    .get(
      "/providers",
      () => {
        const configured = IDENTITY_PROVIDERS.filter((id) => useCases.identityProviders.has(id));
        const entry = (id: ProviderId | "credentials", name: string, type: string) => ({
          id,
          name,
          type,
          signinUrl: `${settings.publicUrl}/api/auth/${id === "credentials" ? "callback/credentials" : `signin/${id}`}`,
          callbackUrl: `${settings.publicUrl}/api/auth/callback/${id}`,
        });
        return Object.fromEntries([
          ["credentials", entry("credentials", "Email and password", "credentials")],
          ...configured.map((id) => [id, entry(id, useCases.identityProviders.get(id)?.name ?? id, "oauth")]),
        ]);
      },
      {
        response: {
          200: z
            .record(
              z.string(),
              z.object({ id: z.string(), name: z.string(), type: z.enum(["credentials", "oauth"]), signinUrl: z.url(), callbackUrl: z.url() }),
            )
            .describe("The sign-in methods on offer, by id: where each starts and where it returns"),
        },
        detail: { summary: "Sign-in methods on offer: credentials and every configured identity provider" },
      },
    )
    .use(oauthRoutes(useCases, settings));
}
