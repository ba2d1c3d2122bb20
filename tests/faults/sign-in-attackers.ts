// The flood of sign-in-flood.test.ts, as a process of its own: a load generator shares no event
// loop and no connection pool with the sign-ins measured against it. Its argument is the plan (JSON);
// it prints one line when it starts and one when it is done, every answer counted by what it said.

export interface Plan {
  url: string;
  addresses: string[];
  loopsPerAddress: number;
  seconds: number;
  /** Existing accounts it guesses at, `victimShare` of the time; made-up e-mails the rest. */
  victims: string[];
  victimShare: number;
  /** An account of the attacker's own: when given, every request signs in to it with its right password. */
  own?: { email: string; password: string };
}

const plan = JSON.parse(process.argv[2] ?? "{}") as Plan;
const deadline = Date.now() + plan.seconds * 1000;
const KINDS: Record<string, string> = {
  "Invalid email or password": "401 wrong e-mail or password",
  "Rate limit exceeded. Please try again later.": "429 rate limit",
  // Every 429 has the rate limit's text; the others say what refused in details.reason.
  "Too many failed sign-in attempts for this e-mail": "429 e-mail locked",
  "Another password check from your address is still waiting": "429 check already waiting",
  "Too many sign-ins at once; please try again in a moment": "503 busy",
  "Another sign-in for this e-mail is being checked; please try again in a moment": "503 e-mail's checks running",
};
const OWN_SIGN_IN = "200 signed in to its own account";
const answers: Record<string, number> = {};
const count = (kind: string) => void (answers[kind] = (answers[kind] ?? 0) + 1);
const anyOf = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

async function attack(ip: string) {
  while (Date.now() < deadline) {
    const email = plan.own?.email ?? (Math.random() < plan.victimShare ? anyOf(plan.victims) : `nobody-${crypto.randomUUID()}@example.com`);
    try {
      const res = await fetch(plan.url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: JSON.stringify({ email, password: plan.own?.password ?? "a wrong guess" }),
      });
      const { error, details } = (await res.json()) as { error?: string; details?: { reason?: string } };
      const why = details?.reason ?? error;
      const kind = res.status === 200 && plan.own ? OWN_SIGN_IN : (KINDS[why ?? ""] ?? `${res.status} ${why}`);
      count(kind);
      // The full allowed rate: told its window is spent, an address waits exactly until it ends.
      if (kind === "429 rate limit") await Bun.sleep(Math.max(0, Math.min(Number(res.headers.get("x-ratelimit-reset")) * 1000, deadline) - Date.now()));
    } catch {
      count("no answer");
      await Bun.sleep(10);
    }
  }
}

console.log(JSON.stringify({ started: true }));
await Promise.all(plan.addresses.flatMap((ip) => Array.from({ length: plan.loopsPerAddress }, () => attack(ip))));
console.log(JSON.stringify({ answers }));
