import { z } from "zod";
import { webUrl } from "../presenters/shapes.ts";

/**
 * A provider's profile is read field by field: a field of another type or form than the provider
 * documents is dropped (null), as an unfit name is, rather than trusted as typed. The use case then
 * holds a name and an e-mail to the rules of every account's.
 */
export const optionalText = z.string().nullable().catch(null);

/** A picture is kept only as a profile's image may be set (routes/users.ts): an http(s) URL of at most 2048 characters. */
export const imageUrl = webUrl.nullable().catch(null);

/**
 * What the shop reads of an id token (Google's, Apple's): its subject, without which the sign-in
 * fails, and an e-mail as any profile's; whether that e-mail is verified each provider says its own way,
 * or not at all: a token without the claim signs in, its e-mail unverified (z.unknown() alone is a
 * required key in zod 4, and every such token failed the sign-in: found by a review).
 */
export const idTokenClaims = z.object({ sub: z.string().min(1), email: optionalText, email_verified: z.unknown().optional() });
