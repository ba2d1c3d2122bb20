import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { easypostWebhookVerifier } from "../../src/adapters/events/easypost.ts";
import { paypalWebhookVerifier } from "../../src/adapters/events/paypal.ts";
import { resendWebhookVerifier } from "../../src/adapters/events/resend.ts";
import { squareWebhookVerifier } from "../../src/adapters/events/square.ts";
import { createIdentityProviders } from "../../src/adapters/identity/index.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import type { MemoryState } from "../../src/adapters/memory/store.ts";
import { createMemoryRateLimitStore } from "../../src/adapters/ratelimit/memory-store.ts";
import type { RateLimitStore } from "../../src/application/ports/system.ts";
import type { UserRole } from "../../src/domain/user.ts";
import { signedInAs } from "../support/accounts.ts";
import { aLocation, aProduct } from "../support/builders.ts";
import { SESSION_COOKIE, TEST_PUBLIC_URL, TEST_WEBHOOK_SECRET, createTestApp } from "../support/http.ts";
import {
  DocumentValidator,
  type FuzzRequest,
  type Json,
  type Known,
  type Operation,
  SchemaArbitraries,
  answerProblems,
  operationsOf,
  requestsFor,
} from "../support/openapi-fuzz.ts";
import { testCertificateSource } from "../support/paypal-certificates.ts";
import { type Delivery, signedByEasyPost, signedByPayPal, signedByResend, signedBySquare, signedByStripe } from "../support/webhook-signers.ts";

/**
 * Issue 22: requests for every operation of the served OpenAPI document, valid, nearly valid and
 * hostile, from every kind of caller; every answer must be documented for its operation, match
 * the documented schema, and never be a 5xx. FUZZ_RUNS requests per operation (50 here, 500 in
 * `npm run fuzz`); FUZZ_SEED replays a run (a failure prints the line that does).
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 22;
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);

const ROLES: UserRole[] = ["CUSTOMER", "WHOLESALE", "FUNDRAISER", "STAFF", "ADMIN", "DEVELOPER"];
const CALLERS = ["anonymous", ...ROLES, "CUSTOMER by Bearer", "ADMIN by Bearer"];
const PASSWORD = "correct horse battery";
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

const EASYPOST_SECRET = "easypost-webhook-secret";
const RESEND_SECRET = `whsec_${Buffer.from("resend-signing-secret-for-tests").toString("base64")}`;
const SQUARE_KEY = "square-signature-key";
const SQUARE_URL = `${TEST_PUBLIC_URL}/api/webhooks/square`;
const PAYPAL_WEBHOOK_ID = "WH-FUZZ-1";

/**
 * The shop every request meets, one for the whole file: memory deps with every webhook provider
 * configured (none is 503 for want of a secret), two identity providers, and no access cache, so
 * each request reads the world as restore() left it. The sign-in limits' store is replaced on
 * every restore too.
 */
function createShop() {
  let attempts = createMemoryRateLimitStore();
  const loginAttempts: RateLimitStore = {
    state: () => attempts.state(),
    increment: (key, windowMs, now) => attempts.increment(key, windowMs, now),
    hitSliding: (key, windowMs, now, hit) => attempts.hitSliding(key, windowMs, now, hit),
    countSliding: (key, windowMs, now) => attempts.countSliding(key, windowMs, now),
    takeBackSliding: (key, hit) => attempts.takeBackSliding(key, hit),
    resetSliding: (key, upTo) => attempts.resetSliding(key, upTo),
  };
  const deps = createMemoryDeps({
    loginAttempts,
    identityProviders: createIdentityProviders(
      { github: { clientId: "gh-client", clientSecret: "gh-secret" }, google: { clientId: "g-client", clientSecret: "g-secret" } },
      TEST_PUBLIC_URL,
    ),
  });
  const t = createTestApp(deps, {
    sessionCacheSeconds: 0,
    webhooks: {
      easypost: easypostWebhookVerifier(EASYPOST_SECRET),
      resend: resendWebhookVerifier(RESEND_SECRET),
      square: squareWebhookVerifier(SQUARE_KEY, SQUARE_URL),
      paypal: paypalWebhookVerifier({ webhookId: PAYPAL_WEBHOOK_ID, certificates: testCertificateSource() }, deps.clock),
    },
  });
  return { ...t, forgetSignInFailures: () => void (attempts = createMemoryRateLimitStore()) };
}
type Shop = ReturnType<typeof createShop>;

/** A valid request to a webhook is one its provider signed: signed here as each provider signs. */
async function signed(provider: string, body: string, deps: MemoryDeps): Promise<Delivery> {
  switch (provider) {
    case "stripe":
      return signedByStripe(body, TEST_WEBHOOK_SECRET);
    case "easypost":
      return signedByEasyPost(body, EASYPOST_SECRET);
    case "resend":
      return signedByResend(body, RESEND_SECRET, `msg_${Bun.hash(body).toString(36)}`);
    case "square":
      return signedBySquare(body, SQUARE_KEY, SQUARE_URL);
    case "paypal":
      return signedByPayPal(body, PAYPAL_WEBHOOK_ID, { at: deps.clock.now() });
  }
  throw new Error(`No signer for ${provider}`);
}

const TRACKING_NUMBER = "1ZFUZZ000000000001";

/** Events as each provider sends them (the document can only say "an object"), about these orders and addresses, acted on or not. */
function eventsOf(orders: { id: string; intent: string | null; total: number }[], emails: string[]): Record<string, fc.Arbitrary<unknown>> {
  const about = fc.record({ n: fc.nat(), order: fc.constantFrom(...orders), whole: fc.boolean(), part: fc.nat({ max: 100_000 }) });
  return {
    stripe: fc
      .tuple(
        about,
        fc.constantFrom("payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled", "charge.refunded", "customer.created"),
      )
      .map(([{ n, order, whole, part }, type]) => ({
        id: `evt_fuzz_${n}`,
        object: "event",
        type,
        data: {
          object:
            type === "charge.refunded"
              ? {
                  id: `ch_${n}`,
                  object: "charge",
                  payment_intent: order.intent,
                  amount: order.total,
                  amount_refunded: whole ? order.total : part,
                  refunded: whole,
                  metadata: { orderId: order.id },
                }
              : {
                  id: order.intent,
                  object: "payment_intent",
                  amount: order.total,
                  amount_received: whole ? order.total : part,
                  currency: "usd",
                  metadata: { orderId: order.id },
                },
        },
      })),
    paypal: fc
      .tuple(about, fc.constantFrom("PAYMENT.CAPTURE.COMPLETED", "PAYMENT.CAPTURE.REFUNDED", "CHECKOUT.ORDER.APPROVED"))
      .map(([{ n, order, whole, part }, event_type]) => ({
        id: `WH-FUZZ-${n}`,
        event_type,
        resource: { id: `CAP-${n}`, custom_id: order.id, amount: { value: ((whole ? order.total : part) / 100).toFixed(2), currency_code: "USD" } },
      })),
    square: fc
      .tuple(about, fc.constantFrom("payment.updated", "payment.created"), fc.constantFrom("COMPLETED", "APPROVED"))
      .map(([{ n, order, whole, part }, type, status]) => ({
        event_id: `sq-fuzz-${n}`,
        type,
        data: {
          object: { payment: { id: `sq-pay-${n}`, status, reference_id: order.id, amount_money: { amount: whole ? order.total : part, currency: "USD" } } },
        },
      })),
    easypost: fc
      .tuple(
        fc.nat(),
        fc.constantFrom("tracker.updated", "tracker.created"),
        fc.constantFrom(TRACKING_NUMBER, "1ZUNKNOWN"),
        fc.constantFrom("delivered", "in_transit"),
      )
      .map(([n, description, tracking_code, status]) => ({ id: `evt_ep_${n}`, object: "Event", description, result: { tracking_code, status } })),
    resend: fc
      .tuple(fc.nat(), fc.constantFrom("email.bounced", "email.complained", "email.delivered", "email.sent"), fc.subarray(emails, { minLength: 1 }))
      .map(([n, type, to]) => ({ type, created_at: "2026-11-22T12:00:00.000Z", data: { email_id: `re_${n}`, to } })),
  };
}

/** The shop every request meets: a catalog, locations, an account of each role signed in, carts, orders pending and paid. */
interface World {
  state: MemoryState;
  intents: Map<string, unknown>;
  refunds: Map<string, unknown>;
  tokens: Map<string, string>;
  known: Known;
  /** Each provider's events, about the world's orders and accounts. */
  events: Record<string, fc.Arbitrary<unknown>>;
}

async function buildWorld(t: Shop): Promise<World> {
  const { deps } = t;
  const products = [aProduct(), aProduct({ price: 1299 }), aProduct({ inventory: 2 }), aProduct({ isActive: false }), aProduct({ inventory: 0 })];
  for (const product of products) await deps.repos.products.create(product);
  const locations = [aLocation(), aLocation({ state: "CA", latitude: 34.05, longitude: -118.24 })];
  for (const location of locations) await deps.repos.locations.create(location);
  const accounts = new Map<string, Awaited<ReturnType<typeof signedInAs>>>();
  for (const role of ROLES) accounts.set(role, await signedInAs(t, role, `${role.toLowerCase()}@example.com`));
  const origin = { ipAddress: null, userAgent: null };
  for (const role of ["CUSTOMER", "ADMIN"]) {
    const { id } = accounts.get(role)!;
    const ordered = await t.useCases.addToCart(id, { productId: products[0]!.id, quantity: 1 }, origin);
    await t.useCases.placeOrder(id, { cartItemIds: [ordered.id], shippingAddress: texas }, origin);
    const paid = await t.useCases.addToCart(id, { productId: products[1]!.id, quantity: 2 }, origin);
    const { orderId } = await t.useCases.placeOrder(id, { cartItemIds: [paid.id], shippingAddress: texas }, origin);
    const intent = (await deps.repos.orders.findById(orderId))!.stripePaymentIntentId!;
    await deps.payments.confirmIntent(intent, "pm_card_visa", `pay-${orderId}`);
    await deps.repos.orders.update(orderId, { status: "CONFIRMED", paymentStatus: "PAID", updatedAt: new Date() });
    // An order waiting on the bank's 3-D Secure challenge.
    const challenged = await t.useCases.addToCart(id, { productId: products[1]!.id, quantity: 1 }, origin);
    const waiting = await t.useCases.placeOrder(id, { cartItemIds: [challenged.id], shippingAddress: texas }, origin);
    const pay = await t.call("POST", "/api/payment", {
      body: { orderId: waiting.orderId, paymentMethodId: "pm_card_threeDSecure2Required" },
      headers: accounts.get(role)!.headers,
    });
    if (pay.body.paymentIntent?.status !== "requires_action") throw new Error(`no challenge: ${JSON.stringify(pay.body)}`);
    // A line left in the cart, to change, remove or check out.
    await t.useCases.addToCart(id, { productId: products[2]!.id, quantity: 1 }, origin);
  }
  // A shipped order, for a carrier's tracking event.
  const [shipped] = [...deps.state.orders.values()].filter((o) => o.paymentStatus === "PAID");
  await deps.repos.orders.update(shipped!.id, { status: "SHIPPED", trackingNumber: TRACKING_NUMBER, updatedAt: new Date() });
  const tokens = new Map([...accounts].map(([role, account]) => [role, account.token]));
  const orders = [...deps.state.orders.values()];
  const ids = [
    ...deps.state.products.keys(),
    ...deps.state.cartItems.keys(),
    ...deps.state.orders.keys(),
    ...deps.state.users.keys(),
    ...deps.state.locations.keys(),
  ];
  const cartLinesOf = (userId: string) => [...deps.state.cartItems.values()].filter((line) => line.userId === userId).map((line) => line.id);
  const known: Known = {
    strings: [...ids, ...products.map((p) => p.slug), ...deps.processor.intents.keys(), ...locations.map((l) => l.state)],
    byName: {
      email: [...[...accounts.values()].map((a) => a.email), "nobody@example.com"],
      password: [PASSWORD],
      currentPassword: [PASSWORD],
      newPassword: ["another long passphrase"],
      paymentMethodId: ["pm_card_visa", "pm_card_chargeDeclined", "pm_card_threeDSecure2Required"],
      provider: ["github", "google", "apple", "facebook"],
      sku: products.map((p) => p.sku),
      productId: products.map((p) => p.id),
      orderId: orders.map((o) => o.id),
      cartItemIds: [...accounts.values()].map((a) => cartLinesOf(a.id)).filter((lines) => lines.length > 0),
      address1: [texas.address1],
      city: [texas.city],
      state: ["TX", "CA", "NY", "OR"],
      postalCode: ["78701", "94103", "10001"],
      country: ["US"],
      status: ["PENDING", "CONFIRMED", "PENDING,CONFIRMED", "SHIPPED,DELIVERED"],
      paymentStatus: ["PAID", "PENDING,FAILED"],
      from: ["2026-11-01", "2026-01-01"],
      to: ["2026-11-30", "2026-11-22T12:00:00.000Z"],
      lat: [30.27],
      lng: [-97.74],
      trackingNumber: [TRACKING_NUMBER],
    },
  };
  const events = eventsOf(
    orders.map((o) => ({ id: o.id, intent: o.stripePaymentIntentId, total: o.total })),
    [...accounts.values()].map((a) => a.email),
  );
  return {
    state: structuredClone(deps.state),
    intents: structuredClone(deps.processor.intents as Map<string, unknown>),
    refunds: structuredClone(deps.processor.refunds as Map<string, unknown>),
    tokens,
    known,
    events,
  };
}

/** Puts the world back as it was built, so every request meets the same shop and a failure replays alone. */
function restore(shop: Shop, world: World) {
  const { state, intents, refunds } = structuredClone({ state: world.state, intents: world.intents, refunds: world.refunds });
  const refill = (map: Map<string, unknown>, rows: Map<string, unknown>) => {
    map.clear();
    for (const [key, row] of rows) map.set(key, row);
  };
  for (const table of Object.keys(state) as (keyof MemoryState)[]) refill(shop.deps.state[table] as Map<string, unknown>, state[table]);
  refill(shop.deps.processor.intents as Map<string, unknown>, intents);
  refill(shop.deps.processor.refunds as Map<string, unknown>, refunds);
  shop.forgetSignInFailures();
}

function credentialsOf(caller: string, world: World): Record<string, string> {
  if (caller === "anonymous") return {};
  const [role, how] = caller.split(" by ");
  const token = world.tokens.get(role!)!;
  return how === "Bearer" ? { authorization: `Bearer ${token}` } : { cookie: `${SESSION_COOKIE}=${token}` };
}

/** A 32-bit seed for one operation, from the run's seed and the operation's name. */
function seedFor(route: string) {
  let hash = 2166136261 ^ SEED;
  for (const char of route) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return hash | 0;
}

const doc: Json = (await createTestApp().call("GET", "/api/openapi.json")).body;
const operations = operationsOf(doc);
const validator = new DocumentValidator(doc);
let shop: Shop;
let world: World;
let arbs: SchemaArbitraries;
/** Statuses seen, per operation, for the coverage check at the end. */
const seen = new Map<string, Map<number, number>>();
const realFetch = globalThis.fetch;

beforeAll(async () => {
  shop = createShop();
  world = await buildWorld(shop);
  arbs = new SchemaArbitraries(doc, world.known);
  // Nothing the fuzz sends may leave the machine (an OAuth callback that got as far as a provider's token endpoint).
  globalThis.fetch = (async () => new Response("refused by the fuzz", { status: 503 })) as unknown as typeof fetch;
});
afterAll(() => {
  globalThis.fetch = realFetch;
  // FUZZ_REPORT=1 prints what each operation answered: how far the requests got.
  if (process.env.FUZZ_REPORT)
    for (const [route, statuses] of seen) {
      const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
      console.log(`${route.padEnd(56)} ${counts.join(" ")}`);
    }
});

type Answer = { status: number; headers: Headers; text: string };

/** Sends the request (and, when it says so, its repeat) as a client on the wire would; the answers in order. */
async function send(operation: Operation, r: FuzzRequest): Promise<Answer[]> {
  let { headers } = r;
  const provider = operation.path.match(/^\/api\/webhooks\/(\w+)$/)?.[1];
  if (provider && r.kind === "valid" && typeof r.body === "string") headers = { ...headers, ...(await signed(provider, r.body, shop.deps)).headers };
  const answers: Answer[] = [];
  for (const body of r.again ? [r.body, r.again.body ?? undefined] : [r.body]) {
    // A body comes with its length, unless it is sent chunked; a header given twice is the later one.
    const sent = new Headers(credentialsOf(r.caller, world));
    if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === "transfer-encoding"))
      sent.set("content-length", String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength));
    for (const [name, value] of Object.entries(headers)) sent.set(name, value);
    const response = await shop.app.handle(new Request(`http://localhost${r.url}`, { method: r.method, headers: sent, body: body ?? null }));
    answers.push({ status: response.status, headers: response.headers, text: await response.text() });
  }
  return answers;
}

describe("fuzz from the served OpenAPI document (issue 22)", () => {
  test("the generator's valid requests are valid by the document's own schemas", () => {
    for (const operation of operations) {
      const body = operation.spec.requestBody?.content;
      for (const [mediaType, { schema }] of Object.entries((body ?? {}) as Record<string, Json>)) {
        const pointer = `#/paths/${operation.path.replaceAll("~", "~0").replaceAll("/", "~1")}/${operation.method.toLowerCase()}/requestBody/content/${mediaType.replace("/", "~1")}/schema`;
        for (const value of fc.sample(arbs.valid(schema), { numRuns: 30, seed: SEED })) {
          expect({ route: operation.route, mediaType, value, problems: validator.problems(pointer, value) }).toEqual({
            route: operation.route,
            mediaType,
            value,
            problems: [],
          });
        }
      }
    }
  });

  for (const operation of operations) {
    test(
      `${operation.route}: ${RUNS} requests, every answer documented, as documented, never a 5xx`,
      async () => {
        const statuses = new Map<number, number>();
        seen.set(operation.route, statuses);
        const provider = operation.path.match(/^\/api\/webhooks\/(\w+)$/)?.[1];
        const property = fc.asyncProperty(requestsFor(operation, arbs, CALLERS, provider ? world.events[provider] : undefined), async (r) => {
          restore(shop, world);
          const problems: string[] = [];
          for (const [i, answer] of (await send(operation, r)).entries()) {
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            for (const problem of answerProblems(doc, validator, operation, answer))
              problems.push(`${i > 0 ? "(sent again) " : ""}${answer.status}: ${problem}`);
          }
          const prototype = Object.prototype as Record<string, unknown>;
          for (const key of ["polluted", "isAdmin", "role"]) if (key in prototype) problems.push(`Object.prototype.${key} was set`);
          if (problems.length) throw new Error(`${r.kind}, ${r.what}:\n${problems.join("\n")}`);
        });
        try {
          await fc.assert(property, { seed: seedFor(operation.route), numRuns: RUNS });
        } catch (error) {
          console.error(
            `Replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} node_modules/.bin/bun test --timeout 60000 tests/http/fuzz.test.ts -t '${operation.route}:'`,
          );
          throw error;
        }
      },
      // A request takes a few milliseconds; a slow machine gets room for 200 each.
      Math.max(60_000, RUNS * 200),
    );
  }

  test("the fuzz got past the door: every operation that needs a session reached its use case (some answer other than 400, 401, 413 and 415)", () => {
    const door = new Set([400, 401, 413, 415]);
    const stopped = operations
      .filter(({ spec }) => spec.security.length && spec.security.every((r: object) => Object.keys(r).length > 0))
      .filter(({ route }) => seen.has(route) && [...seen.get(route)!.keys()].every((status) => door.has(status)))
      .map(({ route }) => route);
    expect(stopped).toEqual([]);
  });
});
