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
