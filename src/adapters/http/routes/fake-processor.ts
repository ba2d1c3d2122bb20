import { Elysia } from "elysia";
import { z } from "zod";
import type { UseCases } from "../../../application/use-cases.ts";
import { toDollars } from "../../../domain/money.ts";
import type { PaymentIntent } from "../../../application/ports/payments.ts";
import { type FakeProcessor, NoChallenge, NoSuchIntent } from "../../payments/fake-processor.ts";
import { deliverFakeEvent } from "../../payments/fake-processor-events.ts";
import { HttpError } from "../errors.ts";
import { errorBody } from "../schemas.ts";
import { contentSecurityPolicy } from "../web.ts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/**
 * A path on this shop to go back to afterwards: never another origin, never a scheme. Printable
 * ASCII without a backslash, which a browser reads as a slash (`/\host` is `//host`).
 */
const RETURN_PATH = /^\/(?!\/)[\x21-\x5b\x5d-\x7e]{0,500}$/;

function challengePage(intent: PaymentIntent, returnTo: string | null): string {
  const amount = toDollars(intent.amount).toLocaleString("en-US", { style: "currency", currency: intent.currency.toUpperCase() });
  const order = intent.metadata.orderNumber ? ` for order ${escapeHtml(intent.metadata.orderNumber)}` : "";
  const action = (answer: string) => `/api/fake-processor/challenge/${intent.id}/${answer}${returnTo ? `?return=${encodeURIComponent(returnTo)}` : ""}`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>3-D Secure test challenge</title></head>
<body>
<main>
<h1>3-D Secure test challenge</h1>
<p>The built-in fake processor plays your bank. Approve the payment of <strong>${amount}</strong>${order}?</p>
<form method="post" action="${action("authorize")}"><button type="submit">Authorize</button></form>
<form method="post" action="${action("fail")}"><button type="submit">Fail</button></form>
</main>
</body>
</html>`;
}

/** Where a payment past its challenge stands, in words. */
function paymentNow(status: PaymentIntent["status"]): string {
  switch (status) {
    case "succeeded":
      return "the payment was authorized";
    case "canceled":
      return "the payment was cancelled";
    case "processing":
      return "the payment is being processed";
    default:
      return "the payment was refused; the order can be paid with another card";
  }
}

/** What became of an answered challenge, or, for one answered before (a page come back to), what its payment is now. */
function resultPage(intent: PaymentIntent, returnTo: string | null, answeredBefore = false): string {
  const outcome = answeredBefore
    ? `There is no challenge to answer: ${paymentNow(intent.status)}.`
    : intent.status === "succeeded"
      ? "The payment was authorized."
      : "The payment was refused; the order can be paid with another card.";
  const back = returnTo ? `<p><a href="${escapeHtml(returnTo)}">Back to the shop</a></p>` : "";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>3-D Secure test challenge</title></head>
<body><main><h1>${outcome}</h1>${back}</main></body>
</html>`;
}

/**
 * Answers with an HTML page (set as the route's content type; the body is the page), under the
 * headers of every page the shop serves (decisions §13): its own files only (these pages load none),
 * and never in a frame.
 */
function html(set: { headers: Record<string, unknown> }, page: string): string {
  Object.assign(set.headers, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": contentSecurityPolicy(false),
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
  });
  return page;
}
const intentParams = z.object({ intentId: z.string().regex(/^pi_[A-Za-z0-9]{1,100}$/, "must be a payment intent id") });
const returnQuery = z.object({ return: z.string().regex(RETURN_PATH, "must be a path on this shop").optional() });
const challengeAnswer = z
  .object({
    paymentIntent: z.object({ id: z.string(), status: z.string() }),
    orderId: z.string().nullable(),
    outcome: z.string().describe("what the order made of it, as a webhook's event: applied, unchanged, flagged, not_found"),
  })
  .meta({ id: "ChallengeAnswer" });

/** An intent the fake does not know is a 404; anything else (its books out of reach: a 503) is answered as any error is. */
const noSuchIntentAs404 = (error: unknown) => (error instanceof NoSuchIntent ? new HttpError(404, "No such payment intent") : error);

/**
 * Decisions §13: 3-D Secure on the embedded default. The fake processor's challenge page (Authorize
 * / Fail) finishes the intent as the bank would, and the order then moves exactly as Stripe's
 * webhook would move it: the same event, through the same pipeline. Mounted only while the fake
 * processor takes the payments (never with Stripe, so never in production). A browser's form gets
 * a page (and a way back to `return`); anything else JSON, so curl can play the bank too.
 */
export function fakeProcessorRoutes(useCases: UseCases, fake: FakeProcessor) {
  /** The challenge answered, and the order moved as Stripe's webhook would move it; or, when the intent waits on none (answered already, or cancelled), what it is now. */
  async function answer(intentId: string, approved: boolean) {
    // Whether it still waits on its challenge is judged where it is answered, under the intent's
    // lock: of two answers at once (or one and a cancellation), one is the answer.
    let completed: Awaited<ReturnType<FakeProcessor["completeAction"]>>;
    try {
      completed = await fake.completeAction(intentId, approved);
    } catch (error) {
      if (error instanceof NoChallenge) return { answered: false as const, intent: error.intent };
      throw noSuchIntentAs404(error);
    }
    const { intent } = completed;
    const outcome = await deliverFakeEvent(useCases, fake, completed);
    return { answered: true as const, intent, orderId: intent.metadata.orderId ?? null, outcome };
  }
  const wantsPage = (request: Request) => request.headers.get("accept")?.includes("text/html") ?? false;
  const detail = { tags: ["Payment"], security: [] };

  return new Elysia({ name: "routes.fake-processor", prefix: "/fake-processor/challenge" })
    .get(
      "/:intentId",
      async ({ params, query, set }) => {
        const intent = await fake.retrieveIntent(params.intentId).catch((error: unknown) => {
          throw noSuchIntentAs404(error);
        });
        // Answered already (the page come back to with the Back button): no buttons, what the payment is now.
        if (intent.status !== "requires_action") return html(set, resultPage(intent, query.return ?? null, true));
        return html(set, challengePage(intent, query.return ?? null));
      },
      {
        params: intentParams,
        query: returnQuery,
        response: { 200: z.string().describe("An HTML page: the amount and two buttons, Authorize and Fail"), 404: errorBody },
        detail: { ...detail, summary: "The fake processor's 3-D Secure challenge page (built-in fake processor only)", "x-html": true },
      },
    )
    .post(
      "/:intentId/:answer",
      async ({ params, query, request, set }) => {
        const result = await answer(params.intentId, params.answer === "authorize");
        if (!result.answered) {
          // A form sent from a page kept by the browser (Back): a page saying what the payment is now, not the 409's JSON.
          if (wantsPage(request)) return html(set, resultPage(result.intent, query.return ?? null, true));
          const { status } = result.intent;
          throw new HttpError(409, `This payment is ${status}: there is no challenge to answer`, { status });
        }
        const { intent, orderId, outcome } = result;
        if (wantsPage(request)) return html(set, resultPage(intent, query.return ?? null));
        return { paymentIntent: { id: intent.id, status: intent.status }, orderId, outcome };
      },
      {
        params: intentParams.extend({ answer: z.enum(["authorize", "fail"]) }),
        query: returnQuery,
        response: {
          200: z
            .union([challengeAnswer, z.string().describe("to a browser (Accept: text/html): a page saying how it went")])
            .describe("The intent as the bank left it, and what the order made of it; a browser gets a page saying how it went"),
          404: errorBody,
          409: errorBody,
        },
        detail: {
          ...detail,
          summary: "Answer the challenge as the bank: authorize (the order is paid) or fail (the payment fails; the order stays payable)",
          "x-html": true,
        },
      },
    );
}
