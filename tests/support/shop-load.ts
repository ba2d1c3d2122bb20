/**
 * Shoppers over HTTP against a running shop process, for the fault proofs: each signs up, then, in
 * a loop until told to stop, adds a unit of one of the products to its cart, checks out (with an
 * Idempotency-Key of its own) and pays what it was given. Every answer is recorded with its
 * status, its Retry-After and when it was asked and answered, and so is a request that got no
 * answer at all (status 0: the shop was killed, or the connection cut).
 */

export const TEXAS = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
export const PASSWORD = "sauce lover 99";

export interface Answer {
  what: string;
  status: number;
  /** X-Request-Id, to find the request in the shop's log. */
  requestId: string | null;
  retryAfter: string | null;
  /** Milliseconds since the epoch. */
  asked: number;
  answered: number;
  body: any;
}

/** How many requests of each kind are on their way now, across clients that share it. */
export type InFlight = Map<string, number>;

/** A client with a cookie of its own; every call is an Answer, appended to `answers`, and counted in `inFlight` while it runs. */
export function aClient(base: () => string, answers: Answer[] = [], { timeoutMs = 30_000, inFlight = new Map() as InFlight } = {}) {
  let cookie = "";
  async function call(what: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const asked = Date.now();
    inFlight.set(what, (inFlight.get(what) ?? 0) + 1);
    let answer: Answer;
    try {
      const res = await fetch(`${base()}${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const set = res.headers.getSetCookie()[0]?.split(";")[0];
      if (set) cookie = set;
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: kept as text.
      }
      answer = {
        what,
        status: res.status,
        requestId: res.headers.get("x-request-id"),
        retryAfter: res.headers.get("retry-after"),
        asked,
        answered: Date.now(),
        body: parsed,
      };
    } catch (error) {
      answer = { what, status: 0, requestId: null, retryAfter: null, asked, answered: Date.now(), body: String(error) };
    } finally {
      inFlight.set(what, (inFlight.get(what) ?? 1) - 1);
    }
    answers.push(answer);
    return answer;
  }
  return { call, answers };
}
export type Client = ReturnType<typeof aClient>;

/** Registers and signs in a client (an admin's e-mail, given the bootstrap admin's, signs in only). */
export async function signedIn(client: Client, email: string, { register = true } = {}): Promise<Client> {
  if (register) {
    const made = await client.call("register", "POST", "/auth/register", { email, password: PASSWORD });
    if (made.status !== 201) throw new Error(`register ${email}: ${made.status} ${JSON.stringify(made.body)}`);
  }
  const signIn = await client.call("sign-in", "POST", "/auth/callback/credentials", { email, password: PASSWORD });
  if (signIn.status !== 200) throw new Error(`sign-in ${email}: ${signIn.status} ${JSON.stringify(signIn.body)}`);
  return client;
}

/**
 * Shoppers buying in a loop until `stop`: add a unit, check out, pay. `pause` (milliseconds) between
 * a failed answer and the next try, so an outage is asked about a few times a second, not in a spin;
 * `between`, after each purchase, for a steady trickle instead of all the shop can take.
 */
export function shoppingLoad(shoppers: Client[], productIds: string[], { pause = 50, between = 0, paymentMethodId = "pm_card_visa" } = {}) {
  let running = true;
  const rest = () => new Promise((resolve) => setTimeout(resolve, pause));
  const loops = shoppers.map(async (shopper, n) => {
    for (let round = 0; running; round++) {
      const productId = productIds[(n + round) % productIds.length]!;
      const added = await shopper.call("cart", "POST", "/cart", { productId, quantity: 1 });
      if (added.status !== 200) {
        await rest();
        continue;
      }
      const placed = await shopper.call("checkout", "POST", "/cart/checkout", { shippingAddress: TEXAS }, { "idempotency-key": crypto.randomUUID() });
      if (placed.status !== 200) {
        await rest();
        continue;
      }
      const paid = await shopper.call("payment", "POST", "/payment", { orderId: placed.body.orderId, paymentMethodId });
      if (paid.status !== 200) await rest();
      if (between > 0) await new Promise((resolve) => setTimeout(resolve, between));
    }
  });
  return {
    /** Stops asking, and waits for the requests in flight. */
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

/** How long answers took, in milliseconds: their count, p50, p99 and the longest. */
export function timings(answers: Answer[]) {
  const sorted = answers.map((a) => a.answered - a.asked).sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
}

/** Counts of answers by `what` and status, e.g. { "checkout 200": 31, "payment 503": 4 }, for a failure's message. */
export function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[`${a.what} ${a.status}`] = (counts[`${a.what} ${a.status}`] ?? 0) + 1;
  return counts;
}
