import { Elysia } from "elysia";
import { z } from "zod";
import type { UseCases } from "../../../application/use-cases.ts";
import { type Actor, PERMISSIONS } from "../../../domain/permissions.ts";
import type { User } from "../../../domain/user.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { JSON_BODY, envelope, envelopeError, newPassword, oneLineName, sessionCookie, timestamp, webUrl } from "../schemas.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";
import { clientOfRequest } from "../plumbing/rate-limit.ts";

const profileSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.string(),
    image: z.string().nullable(),
    isEmailVerified: z.boolean(),
    hasPassword: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
    permissions: z
      .array(z.enum(PERMISSIONS))
      .describe("what the account's role may do now (the role table's, in the catalog's order), so a client draws only the controls it can use"),
  })
  .meta({ id: "Profile" });

const present = (u: User, actor: Actor): z.infer<typeof profileSchema> => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  image: u.image,
  isEmailVerified: u.isEmailVerified,
  hasPassword: u.passwordHash !== null,
  createdAt: u.createdAt.toISOString(),
  updatedAt: u.updatedAt.toISOString(),
  permissions: PERMISSIONS.filter((p) => actor.permissions.has(p)),
});

// Only name and image are the user's to change; any other field is refused, never ignored.
const profileChanges = z
  .object({
    name: oneLineName(100)
      .transform((name) => name || null)
      .nullable()
      .optional()
      .describe("null or blank takes the name away"),
    image: webUrl.nullable().optional(),
  })
  .strict()
  .meta({ id: "ProfileChanges" });

const passwordChange = z.strictObject({ currentPassword: z.string().min(1).max(1024), newPassword }).meta({ id: "PasswordChange" });
const profileAnswer = envelope(profileSchema).meta({ id: "ProfileEnvelope" });
const passwordChanged = envelope(z.object({ message: z.string() })).describe(
  "The password is changed: this session goes on with a new cookie, every other session of the account has ended",
);

const errors = { 400: envelopeError, 401: envelopeError, 403: envelopeError };

export function userRoutes(useCases: UseCases, settings: AuthSettings) {
  return new Elysia({ name: "routes.users", prefix: "/users", detail: { tags: ["Users"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, settings))
    .get(
      "/me",
      async ({ principal }) => ({ success: true as const, data: present(await useCases.getProfile(principal.user.id), principal.actor), error: null }),
      {
        auth: "required",
        envelope: true,
        response: { 200: profileAnswer.describe("The signed-in user's profile"), ...errors },
        detail: { summary: "The signed-in user's profile" },
      },
    )
    .put(
      "/me",
      async ({ principal, body, origin }) => ({
        success: true as const,
        data: present(await useCases.updateProfile(principal.user.id, body, origin), principal.actor),
        error: null,
      }),
      {
        auth: "required",
        envelope: true,
        body: profileChanges,
        ...JSON_BODY,
        response: { 200: profileAnswer.describe("The profile as changed"), ...errors },
        detail: { summary: "Change name and/or image (nothing else)" },
      },
    )
    .post(
      "/password",
      async ({ principal, body, origin, request, startSession }) => {
        await startSession(await useCases.changePassword(principal.user.id, body, origin, clientOfRequest(request)));
        return { success: true as const, data: { message: "Password changed; other sessions have been signed out" }, error: null };
      },
      {
        auth: "required",
        envelope: true,
        body: passwordChange,
        ...JSON_BODY,
        response: { 200: passwordChanged, ...errors, 429: envelopeError, 503: envelopeError },
        detail: { summary: "Change the password; re-issues this session's cookie and ends every other session", ...sessionCookie("set") },
      },
    );
}
