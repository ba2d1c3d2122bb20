import { Elysia } from "elysia";
import { failureOf } from "../../domain/errors.ts";
import type { HeldKey } from "../../application/ports/idempotency.ts";
import type { Logger } from "../../application/ports/system.ts";
import type { UseCases } from "../../application/use-cases.ts";
import { HttpError } from "./errors.ts";
import { requestInfo } from "./plumbing/request-context.ts";

/** Printable ASCII, as Stripe takes its own keys: a UUID fits, and so does any sane client's scheme. */
const KEY = /^[\x21-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_HEADER = {
  in: "header",
  name: "Idempotency-Key",
  required: false,
  schema: { type: "string", minLength: 1, maxLength: 255 },
  description:
    "Send the same key to retry safely: the first answer (below 500, and not a refusal that asks for a retry) is kept 24 hours and given again for the same body (the same parameters: JSON keys in any order, any spacing), marked Idempotent-Replayed: true; another body is 422, a repeat while the first runs 409.",
} as const;

/** The keys the requests running now hold, with the order their first request made, if one did. */
const held = new WeakMap<Request, HeldKey & { userId: string }>();

/** The Idempotency-Key this request holds, for a route whose use case records what it makes (checkout). */
export function heldKeyOf(request: Request): HeldKey | null {
  const found = held.get(request);
  return found ? { key: found.key, claimedAt: found.claimedAt, orderId: found.orderId } : null;
}

/**
 * Decisions §4: on a route that declares `idempotent: true`, a request with an Idempotency-Key is
 * run once per (user, key). Its answer (anything below 500) is kept and replayed, status and body,
 * to a repeat with the same body (decisions §15: the same parameters, compared in canonical JSON),
 * marked `Idempotent-Replayed: true`; the key with another body is 422, and a repeat while the
 * first still runs is 409. A 500 changed nothing, so it frees the key for a retry, and so does a
 * refusal that asks for one (TRY_AGAIN: another payment of the order was running, the cart changed
 * under the checkout). A checkout whose first request made an order but never answered (its
 * process died) runs its route again holding the first claim, and its use case answers that order.
 * Runs after authentication: keys are the signed-in user's.
 */
export function idempotencyPlugin(useCases: UseCases, logger: Logger) {
  return new Elysia({ name: "idempotency" }).macro({
    idempotent: {
      detail: { parameters: [IDEMPOTENCY_KEY_HEADER] } as object,
      async beforeHandle({ request, route, set }) {
        const key = request.headers.get("idempotency-key");
        if (key === null) return;
        const info = requestInfo(request);
        // Keys are each user's: a route that declares `idempotent` must authenticate first.
        if (!info?.userId) throw new Error("an idempotent route ran without a signed-in user");
        if (!KEY.test(key)) throw new HttpError(400, "Invalid Idempotency-Key", { idempotencyKey: "must be 1 to 255 printable ASCII characters" });
        const claim = await useCases.claimIdempotencyKey(info.userId, key, `${request.method} ${route} ${info.bodyDigest ?? ""}`);
        if (claim.kind === "mismatch") throw new HttpError(422, "This Idempotency-Key was used with a different request", { idempotencyKey: key });
        if (claim.kind === "in_flight") throw new HttpError(409, "A request with this Idempotency-Key is still being processed", { idempotencyKey: key });
        if (claim.kind === "replay") {
          set.status = claim.response.status;
          set.headers["idempotent-replayed"] = "true";
          return claim.response.body;
        }
        // The work its key stands for is not done again: the answer is a replay, of an order made before.
        if (claim.kind === "order_made") set.headers["idempotent-replayed"] = "true";
        held.set(request, { userId: info.userId, key, claimedAt: claim.claimedAt, orderId: claim.kind === "order_made" ? claim.orderId : null });
      },
      async mapResponse({ request, responseValue, set }) {
        const mine = held.get(request);
        if (!mine) return;
        held.delete(request);
        const status = typeof set.status === "number" ? set.status : 200;
        // The work is done either way; a key that cannot be kept lets a repeat run again, which the
        // routes answer safely (the lines are gone, the order is paid), so the answer still goes out.
        const settle =
          status >= 500 || requestInfo(request)?.tryAgain
            ? useCases.releaseIdempotencyKey(mine.userId, mine.key, mine.claimedAt)
            : useCases.keepIdempotentResponse(mine.userId, mine.key, mine.claimedAt, { status, body: responseValue });
        await settle.catch((error: unknown) => logger.error("idempotency.keep_failed", { key: mine.key, ...failureOf(error) }));
      },
    },
  });
}

export type Idempotency = ReturnType<typeof idempotencyPlugin>;
