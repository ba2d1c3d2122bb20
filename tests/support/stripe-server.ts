import { parse } from "qs";
import fixtures from "./stripe-fixtures.json";

/**
 * A small Stripe-shaped server for tests (there is no stripe-mock here): the endpoints the shop's
 * Stripe adapter calls, taking form-encoded bodies as Stripe does and answering with Stripe's
 * published example objects (stripe-fixtures.json, from stripe/openapi) filled in. It knows the
 * test payment methods of decisions §4, replays an idempotency key's first answer (a key reused
 * with other parameters is an idempotency_error), and errors as Stripe does: a decline is a 402
 * card_error carrying the intent; an intent past the step asked for is a 400
 * payment_intent_unexpected_state carrying it.
 */

type Intent = Record<string, any> & { id: string; status: string; amount: number; metadata: Record<string, string> };
type Json = Record<string, any>;
type Answer = { status: number; body: Json };

/**
 * Sales tax of the states the tests ship to, in hundred-thousandths (6.25 % = 6250), written out here
 * from the table in docs/orders-and-payments.md rather than imported from the fake, which the payment contract holds to the
 * same amounts: a wrong rate in the fake must not be on both sides. Any other state is not placed.
 */
const TAX_RATES: Readonly<Record<string, number>> = { AK: 0, CA: 7250, MN: 6875, MO: 4225, NY: 4000, PR: 10500, TX: 6250 };

const API_VERSION = "2026-10-28.endive";
export const STRIPE_TEST_KEY = "sk_test_storefront_0123456789";

const DECLINES = new Map<string, { decline_code: string; message: string }>([
  ["pm_card_chargeDeclined", { decline_code: "generic_decline", message: "Your card was declined." }],
  ["pm_card_chargeDeclinedInsufficientFunds", { decline_code: "insufficient_funds", message: "Your card has insufficient funds." }],
]);
const SUCCEEDS = new Set(["pm_card_visa", "pm_card_mastercard"]);
const THREE_D_SECURE = "pm_card_threeDSecure2Required";
// Where an intent can still be confirmed (again, with another method) or cancelled.
const CANCELABLE = new Set(["requires_payment_method", "requires_confirmation", "requires_action"]);

let sequence = 0;
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++sequence).toString(36).padStart(6, "0")}TEST`;
const now = () => Math.floor(Date.now() / 1000);

const error = (status: number, fields: Json): Answer => ({
  status,
  body: { error: { doc_url: `https://docs.stripe.com/error-codes/${fields.code ?? ""}`, ...fields } },
});
const missing = (param: string, id: string) =>
  error(404, { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${param === "intent" ? "payment_intent" : param}: '${id}'` });
const unexpectedState = (intent: Intent, action: string) =>
  error(400, {
    type: "invalid_request_error",
    code: "payment_intent_unexpected_state",
    message: `You cannot ${action} this PaymentIntent because it has a status of ${intent.status}.`,
    payment_intent: structuredClone(intent),
  });

/** `latencyMs`: how long each answer takes, as Stripe's do over the internet (the benches use it). */
export async function startStripeTestServer({ latencyMs = 0 }: { latencyMs?: number } = {}) {
  const intents = new Map<string, Intent>();
  const charges = new Map<string, Json>();
  /** Every refund made, as Stripe's books would list them (a replayed key made none). */
  const refunds: Json[] = [];
  const replays = new Map<string, { fingerprint: string; answer: Answer }>();
  const calls: Array<{ method: string; path: string; idempotencyKey: string | null; replayed: boolean }> = [];
  let failures: { remaining: number; status: number; afterRunning: boolean } = { remaining: 0, status: 500, afterRunning: false };
  let slow: { pathEnd: string; ms: number } | null = null;
  const holds: Array<{ pathEnd: string; ran: () => void; released: Promise<void> }> = [];
  /** How the next refund comes out, when not as a card's does (succeeded); see refundNext. */
  let nextRefund: { status: string; failure_reason: string | null } | null = null;
  const running = new Set<string>();

  function createIntent(p: Json): Answer {
    const amount = Number(p.amount);
    if (!Number.isInteger(amount) || amount < 50)
      return error(400, { type: "invalid_request_error", code: "amount_too_small", param: "amount", message: "Amount must be at least $0.50 usd" });
    if (amount > 99_999_999)
      return error(400, { type: "invalid_request_error", code: "amount_too_large", param: "amount", message: "Amount must be no more than $999,999.99" });
    const id = newId("pi");
    const intent: Intent = {
      ...structuredClone(fixtures.payment_intent),
      id,
      amount,
      amount_received: 0,
      currency: p.currency,
      metadata: p.metadata ?? {},
      client_secret: `${id}_secret_${newId("s")}`,
      status: "requires_payment_method",
      automatic_payment_methods: {
        enabled: p.automatic_payment_methods?.enabled === "true",
        allow_redirects: p.automatic_payment_methods?.allow_redirects ?? "always",
      },
      created: now(),
      canceled_at: null,
      cancellation_reason: null,
      last_payment_error: null,
      latest_charge: null,
      next_action: null,
      payment_method: null,
      processing: null,
      transfer_data: null,
      shipping: null,
    };
    intents.set(id, intent);
    return { status: 200, body: structuredClone(intent) };
  }

  function charge(intent: Intent, paymentMethod: string, paid: boolean): string {
    const id = newId("ch");
    charges.set(id, {
      ...structuredClone(fixtures.charge),
      id,
      amount: intent.amount,
      amount_captured: paid ? intent.amount : 0,
      amount_refunded: 0,
      captured: paid,
      paid,
      refunded: false,
      status: paid ? "succeeded" : "failed",
      payment_intent: intent.id,
      payment_method: paymentMethod,
      metadata: { ...intent.metadata },
      created: now(),
    });
    return id;
  }

  function confirm(intent: Intent | undefined, id: string, p: Json): Answer {
    if (!intent) return missing("intent", id);
    if (!CANCELABLE.has(intent.status)) return unexpectedState(intent, "confirm");
    const method = String(p.payment_method ?? "");
    if (!SUCCEEDS.has(method) && !DECLINES.has(method) && method !== THREE_D_SECURE) {
      return error(400, { type: "invalid_request_error", code: "resource_missing", param: "payment_method", message: `No such PaymentMethod: '${method}'` });
    }
    intent.payment_method = newId("pm");
    if (method === THREE_D_SECURE) {
      Object.assign(intent, { status: "requires_action", next_action: { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect" } } });
      return { status: 200, body: structuredClone(intent) };
    }
    const decline = DECLINES.get(method);
    if (decline) {
      const chargeId = charge(intent, intent.payment_method, false);
      const lastError = {
        type: "card_error",
        code: "card_declined",
        ...decline,
        charge: chargeId,
        payment_method: { id: intent.payment_method, object: "payment_method", type: "card" },
      };
      Object.assign(intent, { status: "requires_payment_method", last_payment_error: lastError, latest_charge: chargeId, payment_method: null });
      return error(402, { ...lastError, payment_intent: structuredClone(intent) });
    }
    Object.assign(intent, {
      status: "succeeded",
      amount_received: intent.amount,
      last_payment_error: null,
      next_action: null,
      latest_charge: charge(intent, intent.payment_method, true),
    });
    return { status: 200, body: structuredClone(intent) };
  }

  function cancel(intent: Intent | undefined, id: string): Answer {
    if (!intent) return missing("intent", id);
    if (!CANCELABLE.has(intent.status)) return unexpectedState(intent, "cancel");
    Object.assign(intent, { status: "canceled", canceled_at: now(), next_action: null });
    return { status: 200, body: structuredClone(intent) };
  }

  function refund(p: Json): Answer {
    const intent = intents.get(String(p.payment_intent));
    if (!intent) return missing("payment_intent", String(p.payment_intent));
    const paid = intent.latest_charge ? charges.get(intent.latest_charge) : undefined;
    if (intent.status !== "succeeded" || !paid)
      return error(400, {
        type: "invalid_request_error",
        code: "charge_not_refundable",
        message: "This PaymentIntent does not have a successful charge to refund.",
      });
    const left = paid.amount - paid.amount_refunded;
    const amount = p.amount === undefined ? left : Number(p.amount);
    if (left === 0)
      return error(400, { type: "invalid_request_error", code: "charge_already_refunded", message: `Charge ${paid.id} has already been refunded.` });
    if (amount > left)
      return error(400, {
        type: "invalid_request_error",
        code: "amount_too_large",
        param: "amount",
        message: `Refund amount ($${amount / 100}) is greater than unrefunded amount on charge ($${left / 100})`,
      });
    const { status, failure_reason } = nextRefund ?? { status: "succeeded", failure_reason: null };
    nextRefund = null;
    // A refund that failed or was cancelled gives the charge its amount back.
    if (status !== "failed" && status !== "canceled")
      Object.assign(paid, { amount_refunded: paid.amount_refunded + amount, refunded: paid.amount_refunded + amount === paid.amount });
    const body = {
      ...structuredClone(fixtures.refund),
      id: newId("re"),
      amount,
      charge: paid.id,
      payment_intent: intent.id,
      currency: intent.currency,
      status,
      failure_reason,
      created: now(),
    };
    refunds.push(body);
    return { status: 200, body };
  }

  function calculateTax(p: Json): Answer {
    const address = p.customer_details?.address ?? {};
    const rate = address.country === "US" ? TAX_RATES[address.state] : 0;
    if (rate === undefined)
      return error(400, {
        type: "invalid_request_error",
        code: "customer_tax_location_invalid",
        message: "We could not determine the customer's tax location based on the provided customer address.",
      });
    const lines = (p.line_items ?? []) as Json[];
    const taxes = lines.map((line) => Math.round((Number(line.amount) * rate) / 100_000));
    const subtotal = lines.reduce((sum, line) => sum + Number(line.amount), 0);
    const tax = taxes.reduce((sum, t) => sum + t, 0);
    return {
      status: 200,
      body: {
        ...structuredClone(fixtures["tax.calculation"]),
        id: newId("taxcalc"),
        amount_total: subtotal + tax,
        currency: p.currency,
        customer_details: {
          ...fixtures["tax.calculation"].customer_details,
          address: { line2: "", ...address },
          address_source: p.customer_details?.address_source,
        },
        shipping_cost: null,
        tax_amount_exclusive: tax,
        tax_amount_inclusive: 0,
        tax_breakdown: [
          {
            ...fixtures["tax.calculation"].tax_breakdown[0],
            amount: tax,
            taxable_amount: subtotal,
            tax_rate_details: {
              country: address.country,
              state: address.state,
              percentage_decimal: String(rate / 1000),
              tax_type: "sales_tax",
              flat_amount: null,
              rate_type: "percentage",
            },
          },
        ],
        tax_date: now(),
      },
    };
  }

  function route(method: string, path: string, p: Json): Answer {
    const [, , resource, id, action] = path.split("/");
    if (resource === "payment_intents" && method === "POST" && !id) return createIntent(p);
    if (resource === "payment_intents" && method === "POST" && action === "confirm") return confirm(intents.get(id!), id!, p);
    if (resource === "payment_intents" && method === "POST" && action === "cancel") return cancel(intents.get(id!), id!);
    if (resource === "payment_intents" && method === "GET" && id && !action)
      return intents.has(id) ? { status: 200, body: structuredClone(intents.get(id)!) } : missing("intent", id);
    if (resource === "refunds" && method === "POST" && !id) return refund(p);
    if (path === "/v1/tax/calculations" && method === "POST") return calculateTax(p);
    return error(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (latencyMs > 0) await Bun.sleep(latencyMs);
      const url = new URL(request.url);
      const respond = ({ status, body }: Answer, headers: Record<string, string> = {}) =>
        Response.json(body, { status, headers: { "request-id": newId("req"), "stripe-version": API_VERSION, ...headers } });
      if (request.headers.get("authorization") !== `Bearer ${STRIPE_TEST_KEY}`) {
        return respond(error(401, { type: "invalid_request_error", message: "Invalid API Key provided" }));
      }
      const text = await request.text();
      const params = parse(request.method === "GET" ? url.search.slice(1) : text, { depth: 10, arrayLimit: 100 }) as Json;
      const key = request.headers.get("idempotency-key");
      const fingerprint = `${request.method} ${url.pathname} ${text}`;
      // Stripe refuses a key while its first request still runs; stripe-node retries that 409.
      if (key && running.has(key)) {
        calls.push({ method: request.method, path: url.pathname, idempotencyKey: key, replayed: false });
        return respond(
          error(409, {
            type: "idempotency_error",
            code: "idempotency_key_in_use",
            message: "There is currently another in-progress request using this Stripe-Idempotency-Key.",
          }),
        );
      }
      const kept = key ? replays.get(key) : undefined;
      calls.push({ method: request.method, path: url.pathname, idempotencyKey: key, replayed: Boolean(kept && kept.fingerprint === fingerprint) });
      if (kept) {
        if (kept.fingerprint !== fingerprint) {
          return respond(
            error(400, {
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            }),
          );
        }
        return respond(kept.answer, { "idempotent-replayed": "true" });
      }
      // An injected outage answers before anything runs, so nothing of it is kept for the key.
      const failing = failures.remaining > 0 ? failures : null;
      if (failing) failures = { ...failures, remaining: failures.remaining - 1 };
      if (failing && !failing.afterRunning) return respond(error(failing.status, { type: "api_error", message: "An unknown error occurred" }));
      const ran = route(request.method, url.pathname, params);
      // One after the work: done, and Stripe keeps the failure as the key's answer (it keeps 500s too).
      const answer = failing ? error(failing.status, { type: "api_error", message: "An unknown error occurred" }) : ran;
      const hold = holds.findIndex((h) => url.pathname.endsWith(h.pathEnd));
      if (hold >= 0) {
        const [{ ran, released }] = holds.splice(hold, 1) as [(typeof holds)[number]];
        if (key) running.add(key);
        ran();
        await released;
        if (key) running.delete(key);
      }
      if (slow && url.pathname.endsWith(slow.pathEnd)) {
        if (key) running.add(key);
        await Bun.sleep(slow.ms);
        if (key) running.delete(key);
      }
      // As Stripe: a request whose parameters failed validation keeps no result for its key.
      if (key && request.method === "POST" && !answer.body.error?.param) replays.set(key, { fingerprint, answer });
      return respond(answer);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    secretKey: STRIPE_TEST_KEY,
    intents: intents as ReadonlyMap<string, Intent>,
    charges: charges as ReadonlyMap<string, Json>,
    refunds: refunds as readonly Json[],
    calls,
    /** The calls that ran (a replayed key did not), to `path` ending so, e.g. "/confirm". */
    ran: (pathEnd: string) => calls.filter((c) => !c.replayed && c.path.endsWith(pathEnd)).length,
    /**
     * The next `count` requests fail with `status` before anything runs; `afterRunning`: after
     * they ran (the intent confirmed, the money taken), the failure kept as their keys' answer.
     */
    failNext(count: number, status = 500, { afterRunning = false } = {}) {
      failures = { remaining: count, status, afterRunning };
    },
    /**
     * Every request to a path ending so (every one, with "") runs, and its answer comes `ms` late,
     * its key in use meanwhile (a retry is told so, 409); 0 ends it.
     */
    slowDown(ms: number, pathEnd = "") {
      slow = ms > 0 ? { pathEnd, ms } : null;
    },
    /**
     * The next request to a path ending so runs, and then its answer waits until released: for a
     * test to act while the caller is still waiting on Stripe. `ran` settles once it has run.
     */
    holdNext(pathEnd: string) {
      let ran = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => (ran = resolve));
      holds.push({ pathEnd, ran, released: new Promise<void>((resolve) => (release = resolve)) });
      return { ran: reached, release };
    },
    /**
     * The next refund comes out so, as some do at Stripe: `pending` (the money on its way), or
     * `failed` with its reason (a card closed since, say), `requires_action` or `canceled`, the
     * money then not refunded.
     */
    refundNext(status: "pending" | "failed" | "requires_action" | "canceled", failureReason: string | null = null) {
      nextRefund = { status, failure_reason: failureReason };
    },
    /** What the customer's bank does after 3-D Secure: the intent succeeds, or needs another method. */
    completeAction(intentId: string, approved: boolean): Intent {
      const intent = intents.get(intentId);
      if (intent?.status !== "requires_action") throw new Error(`intent ${intentId} is not waiting for an action`);
      if (approved)
        Object.assign(intent, {
          status: "succeeded",
          amount_received: intent.amount,
          next_action: null,
          latest_charge: charge(intent, intent.payment_method, true),
        });
      else
        Object.assign(intent, {
          status: "requires_payment_method",
          next_action: null,
          last_payment_error: { type: "card_error", code: "payment_intent_authentication_failure", message: "The customer did not authenticate." },
        });
      return structuredClone(intent);
    },
    /** A Stripe event about `object`, as a webhook delivers it (sign it with the SDK's test header helper). */
    event(type: string, object: Json, id = newId("evt")): Json {
      return {
        ...structuredClone(fixtures.event),
        id,
        type,
        api_version: API_VERSION,
        created: now(),
        livemode: false,
        pending_webhooks: 1,
        data: { object: structuredClone(object) },
      };
    },
    close: () => server.stop(true),
  };
}

export type StripeTestServer = Awaited<ReturnType<typeof startStripeTestServer>>;
