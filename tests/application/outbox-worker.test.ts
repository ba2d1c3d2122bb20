import { describe, expect, jest, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { MailRefused, type Mailer, type OutgoingMail } from "../../src/application/ports/mail.ts";
import type { Logger } from "../../src/application/ports/system.ts";
import { silentLogger } from "../../src/adapters/log.ts";
import { type OutboxWorkerOptions, createOutboxWorker } from "../../src/application/mail/outbox-worker.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { settled } from "../support/settled.ts";
import { eventually } from "../support/eventually.ts";
import { databaseReadOnly, databaseUnavailable } from "../../src/domain/errors.ts";

const createId = cuid2Ids.next;

/** A mailer whose every send the test decides: it records the mail and awaits `respond`. */
function fakeMailer(respond: () => Promise<void> = async () => undefined) {
  const sent: OutgoingMail[] = [];
  const mailer: Mailer = {
    async send(mail) {
      sent.push(mail);
      await respond();
      return { messageId: `provider-${sent.length}` };
    },
  };
  return { mailer, sent };
}

const refuse = async () => {
  throw new Error("451 try later");
};

function setup(mailer: Mailer, options: Partial<OutboxWorkerOptions> = {}, logger: Logger = silentLogger) {
  const deps = createMemoryDeps({ mailer, logger });
  const {
    clock,
    repos: { outbox },
  } = deps;
  const worker = createOutboxWorker(deps, options);
  const enqueue = (to = "ada@example.com") => outbox.enqueue({ id: createId(), to, subject: "Welcome", text: "Hello", html: null, createdAt: clock.now() });
  const only = async () => (await outbox.list())[0]!;
  return { clock, outbox, worker, enqueue, only };
}

describe("outbox worker", () => {
  test("waits longer after every failed attempt, doubling from 30 seconds up to an hour", async () => {
    const { clock, worker, enqueue, only } = setup(fakeMailer(refuse).mailer);
    await enqueue();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 9; attempt++) {
      expect(await worker.runOnce()).toEqual({ sent: 0, retried: 1, failed: 0, suppressed: 0, superseded: 0 });
      const { nextAttemptAt } = await only();
      waits.push(nextAttemptAt.getTime() - clock.now().getTime());
      clock.set(nextAttemptAt);
    }
    expect(waits).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600].map((s) => s * 1000));
  });

  test("a message that keeps failing is marked failed after maxAttempts, kept, and logged as an error", async () => {
    const { mailer, sent } = fakeMailer(refuse);
    const errors: string[] = [];
    const logger: Logger = { ...silentLogger, error: (event) => errors.push(event) };
    const { clock, worker, enqueue, outbox } = setup(mailer, { maxAttempts: 3, backoff: () => 1000 }, logger);
    await enqueue();
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push(await worker.runOnce());
      clock.advance(60_000);
    }
    expect(outcomes.map((o) => o.failed)).toEqual([0, 0, 1, 0, 0]);
    expect(sent).toHaveLength(3);
    expect(await outbox.list()).toMatchObject([{ status: "failed", attempts: 3, lastError: "451 try later" }]);
    expect(errors).toEqual(["mail.gave_up"]);
  });

  test("mail to an address on the suppression list is never sent: it is marked suppressed; the provider's id of sent mail is kept", async () => {
    const { mailer, sent } = fakeMailer();
    const deps = createMemoryDeps({ mailer });
    const worker = createOutboxWorker(deps);
    for (const to of ["bounced@example.com", "fine@example.com"])
      await deps.repos.outbox.enqueue({ id: createId(), to, subject: "Hi", text: "Hi", html: null, createdAt: deps.clock.now() });
    await deps.uow.transaction((tx) => tx.suppressions.add("Bounced@Example.com", "bounced", deps.clock.now()));
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 1, superseded: 0 });
    expect(sent.map((m) => m.to)).toEqual(["fine@example.com"]);
    expect(Object.fromEntries((await deps.repos.outbox.list()).map((m) => [m.to, [m.status, m.providerMessageId]]))).toEqual({
      "bounced@example.com": ["suppressed", null],
      "fine@example.com": ["sent", "provider-1"],
    });
  });

  test("a bounce for its address that comes while a message is being sent leaves it sent, as it went out, and the worker says so at warn: the bounce's audit counted it suppressed (found by an attack)", async () => {
    let bounce = async () => undefined;
    const { mailer } = fakeMailer(() => bounce());
    const warned: [string, unknown][] = [];
    const { clock, outbox, worker, enqueue, only } = setup(mailer, {}, { ...silentLogger, warn: (event, fields) => warned.push([event, fields]) });
    bounce = async () => {
      await outbox.markSuppressed({ to: "ada@example.com" });
    };
    await enqueue();
    const { id } = await only();
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect(await only()).toMatchObject({ status: "sent", sentAt: clock.now(), providerMessageId: "provider-1" });
    expect(warned).toEqual([["mail.sent_while_suppressed", { id }]]);
  });

  test("a send that has not finished by its deadline is cut and tried again later; the run goes on to the next message", async () => {
    const hung = Promise.withResolvers<void>();
    const sent: string[] = [];
    const mailer: Mailer = {
      async send(mail) {
        sent.push(mail.to);
        if (mail.to === "slow@example.com") await hung.promise;
        return { messageId: null };
      },
    };
    const { worker, enqueue, outbox } = setup(mailer, { sendDeadlineMs: 50 });
    await enqueue("slow@example.com");
    await enqueue("quick@example.com");
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 1, failed: 0, suppressed: 0, superseded: 0 });
    expect(sent.sort()).toEqual(["quick@example.com", "slow@example.com"]);
    expect(Object.fromEntries((await outbox.list()).map((m) => [m.to, m.status]))).toEqual({ "slow@example.com": "pending", "quick@example.com": "sent" });
    hung.resolve();
  });

  test("each try of a message names it by its outbox id, and gives the mailer a signal that ends with the send's deadline", async () => {
    const given: Array<{ id?: string; signal?: AbortSignal }> = [];
    const mailer: Mailer = {
      async send(_mail, options = {}) {
        given.push(options);
        throw new Error("451 try later");
      },
    };
    const { clock, worker, enqueue, only } = setup(mailer, { sendDeadlineMs: 50 });
    await enqueue();
    await worker.runOnce();
    clock.set((await only()).nextAttemptAt);
    await worker.runOnce();
    const { id } = await only();
    expect(given.map((options) => options.id)).toEqual([id, id]);
    await eventually(() => expect(given.every((options) => options.signal?.aborted)).toBe(true));
  });

  test("a message the server refused for good (its recipient, its content) is given up at once, not tried twelve times", async () => {
    const { mailer, sent } = fakeMailer(async () => {
      throw new MailRefused("550 5.1.1 No such user here");
    });
    const logged: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = { ...silentLogger, error: (event, fields) => logged.push([event, fields]) };
    const { worker, enqueue, only } = setup(mailer, {}, logger);
    await enqueue();
    expect(await worker.runOnce()).toEqual({ sent: 0, retried: 0, failed: 1, suppressed: 0, superseded: 0 });
    expect(sent).toHaveLength(1);
    expect(await only()).toMatchObject({ status: "failed", attempts: 1, lastError: "550 5.1.1 No such user here" });
    expect(logged).toEqual([["mail.gave_up", expect.objectContaining({ refused: true, attempts: 1 })]]);
  });

  test("what a failed send said is kept and logged cut to 1,000 characters: a server's 900 KB refusal filled the log and the outbox (found by an attack)", async () => {
    const { mailer } = fakeMailer(async () => {
      throw new Error(`451 ${"x".repeat(900_000)}`);
    });
    const logged: Array<Record<string, unknown> | undefined> = [];
    const logger: Logger = { ...silentLogger, warn: (_event, fields) => logged.push(fields) };
    const { worker, enqueue, only } = setup(mailer, {}, logger);
    await enqueue();
    await worker.runOnce();
    expect((await only()).lastError).toHaveLength(1_000);
    expect(String(logged[0]?.error)).toHaveLength(1_000);
  });

  test("two instances share the outbox: a batch held up near its lease's end sends nothing more and hands the rest back, and the other instance sends them, each message once (found by an attack)", async () => {
    const deps = createMemoryDeps({ logger: silentLogger });
    const sentBy: string[] = [];
    const mailer = (who: string): Mailer => ({
      async send(mail) {
        sentBy.push(`${who} ${mail.to}`);
        return { messageId: null };
      },
    });
    // The lease: 3 sends × 1 s, and two minutes (123 s); a send starts only with its second and a minute of it left.
    const options = { batchSize: 3, sendDeadlineMs: 1_000, leaseMs: 1_000 };
    const second = createOutboxWorker({ ...deps, mailer: mailer("second") }, options);
    // The first instance's database answers 61 s late each time it is asked about a recipient.
    const stalling = {
      ...deps.uow,
      async read<T>(work: Parameters<typeof deps.uow.read<T>>[0]) {
        deps.clock.advance(61_000);
        return deps.uow.read(work);
      },
    };
    const first = createOutboxWorker({ ...deps, uow: stalling, mailer: mailer("first") }, options);
    for (const to of ["a@example.com", "b@example.com", "c@example.com"]) {
      await deps.repos.outbox.enqueue({ id: createId(), to, subject: "Hi", text: "Hi", html: null, createdAt: deps.clock.now() });
      deps.clock.advance(1);
    }
    // a at 61 s; b would start at 122 s, its deadline and margin past the lease's end at 123 s.
    expect(await first.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect(await second.runOnce()).toEqual({ sent: 2, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect(sentBy).toEqual(["first a@example.com", "second b@example.com", "second c@example.com"]);
    expect((await deps.repos.outbox.list()).map((m) => [m.status, m.attempts])).toEqual([
      ["sent", 1],
      ["sent", 1],
      ["sent", 1],
    ]);
  });

  test.each([
    ["given up", new MailRefused("550 mailbox unavailable")],
    ["retried", new Error("451 try later")],
  ])(
    "a failed send recorded after its claim's lease ended, when another instance has sent the message since, is neither %s nor logged so (found by a review)",
    async (_, failure) => {
      const events: string[] = [];
      const record = (event: string) => events.push(event);
      const deps = createMemoryDeps({ logger: { ...silentLogger, error: record, warn: record } });
      const options = { batchSize: 1, sendDeadlineMs: 1_000, leaseMs: 1_000 };
      const second = createOutboxWorker({ ...deps, mailer: { send: async () => ({ messageId: "second" }) } }, options);
      // The first instance's send outlasts its lease (a stalled process, say): meanwhile the second claims the message and sends it.
      const stalled: Mailer = {
        async send() {
          deps.clock.advance(10 * 60_000);
          expect(await second.runOnce()).toMatchObject({ sent: 1 });
          throw failure;
        },
      };
      const first = createOutboxWorker({ ...deps, mailer: stalled }, options);
      await deps.repos.outbox.enqueue({ id: createId(), to: "ada@example.com", subject: "Hi", text: "Hi", html: null, createdAt: deps.clock.now() });
      expect(await first.runOnce()).toEqual({ sent: 0, retried: 0, failed: 0, suppressed: 0, superseded: 1 });
      expect(events).toEqual(["mail.claim_ended"]);
      expect(await deps.repos.outbox.list()).toMatchObject([{ status: "sent", providerMessageId: "second", lastError: null }]);
    },
  );

  test("a batch the database fails in the middle of hands back what it had not reached, due at once and its attempt not counted; the one it was on waits out its lease (found by a review)", async () => {
    const { mailer, sent } = fakeMailer();
    const deps = createMemoryDeps({ mailer, logger: silentLogger });
    let reads = 0;
    // The second message's recipient cannot be looked up: the database went away for a moment.
    const blinking = {
      ...deps.uow,
      read<T>(work: Parameters<typeof deps.uow.read<T>>[0]) {
        return ++reads === 2 ? Promise.reject(databaseUnavailable(new Error("connection terminated"))) : deps.uow.read(work);
      },
    };
    const worker = createOutboxWorker({ ...deps, uow: blinking }, { batchSize: 3 });
    for (const to of ["a@example.com", "b@example.com", "c@example.com"]) {
      await deps.repos.outbox.enqueue({ id: createId(), to, subject: "Hi", text: "Hi", html: null, createdAt: deps.clock.now() });
      deps.clock.advance(1);
    }
    await expect(worker.runOnce()).rejects.toThrow();
    expect(sent.map((m) => m.to)).toEqual(["a@example.com"]);
    const now = deps.clock.now();
    const dueLater = (m: { status: string; nextAttemptAt: Date }) => (m.status === "pending" ? m.nextAttemptAt > now : null);
    expect((await deps.repos.outbox.list()).map((m) => [m.to, m.status, m.attempts, dueLater(m)])).toEqual([
      ["a@example.com", "sent", 1, null],
      ["b@example.com", "pending", 1, true],
      ["c@example.com", "pending", 0, false],
    ]);
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect(sent.map((m) => m.to)).toEqual(["a@example.com", "c@example.com"]);
  });

  test("one run drains a backlog larger than a batch", async () => {
    const { mailer, sent } = fakeMailer();
    const { worker, enqueue, outbox } = setup(mailer, { batchSize: 3 });
    for (let i = 0; i < 7; i++) await enqueue(`customer${i}@example.com`);
    expect(await worker.runOnce()).toEqual({ sent: 7, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect(new Set(sent.map((m) => m.to)).size).toBe(7);
    expect((await outbox.list()).every((m) => m.status === "sent")).toBe(true);
  });

  test("a run the database refuses (taking no writes, say) is logged at warn, not as an error every poll; any other failure at error", async () => {
    jest.useFakeTimers();
    try {
      const logged: Array<[string, string, Record<string, unknown> | undefined]> = [];
      const at = (level: string) => (event: string, fields?: Record<string, unknown>) => void logged.push([level, event, fields]);
      const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
      const { worker, outbox } = setup(fakeMailer().mailer, { pollIntervalMs: 1_000 }, logger);
      const failures = [databaseReadOnly(new Error("cannot execute UPDATE in a read-only transaction")), new Error("a bug")];
      outbox.claimDue = async () => {
        throw failures.shift() ?? new Error("no more");
      };
      worker.start();
      jest.advanceTimersByTime(1);
      await settled();
      jest.advanceTimersByTime(1_000);
      await settled();
      await worker.stop();
      expect(logged.filter(([, event]) => event === "mail.worker_failed").map(([level, , fields]) => [level, fields?.reason ?? fields?.error])).toEqual([
        ["warn", "cannot execute UPDATE in a read-only transaction"],
        ["error", "a bug"],
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  test("notify() sends fresh mail at once instead of at the next poll", async () => {
    // Fake timers: the minute to the next poll passes only as the test moves them. A timer set for 0 ms
    // counts as 1 ms, as in Node.
    jest.useFakeTimers();
    try {
      const { mailer, sent } = fakeMailer();
      const { worker, enqueue, outbox, only } = setup(mailer, { pollIntervalMs: 60_000 });
      let claims = 0;
      const claimDue = outbox.claimDue;
      outbox.claimDue = (...args) => {
        claims++;
        return claimDue(...args);
      };
      worker.start();
      jest.advanceTimersByTime(1);
      await settled();
      expect(claims).toBe(1);
      await enqueue();
      jest.advanceTimersByTime(59_000);
      await settled();
      expect([claims, sent.length]).toEqual([1, 0]);
      worker.notify();
      jest.advanceTimersByTime(1);
      await settled();
      expect([claims, sent.length]).toEqual([2, 1]);
      await worker.stop();
      expect((await only()).status).toBe("sent");
    } finally {
      jest.useRealTimers();
    }
  });

  test("stop(grace) cuts a send that outlasts the grace, so a hung mail server holds no shutdown; the message is due again at once, for any instance (found by an attack)", async () => {
    const hung = Promise.withResolvers<void>();
    const sending = Promise.withResolvers<void>();
    let calls = 0;
    const { mailer, sent } = fakeMailer(() => {
      sending.resolve();
      return ++calls === 1 ? hung.promise : Promise.resolve();
    });
    const { clock, worker, enqueue, only } = setup(mailer);
    await enqueue();
    worker.start();
    await sending.promise;
    await worker.stop(10);
    expect(await only()).toMatchObject({ status: "pending", attempts: 1, lastError: "cut: the instance stopped while sending", nextAttemptAt: clock.now() });
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect(sent).toHaveLength(2);
    hung.resolve();
  });

  test("stop() during a batch takes no more mail: the send in flight finishes, and the rest are handed back untried, due at once", async () => {
    const sending = Promise.withResolvers<void>();
    const send = Promise.withResolvers<void>();
    const { mailer, sent } = fakeMailer(() => {
      sending.resolve();
      return send.promise;
    });
    const { clock, worker, enqueue, outbox } = setup(mailer);
    for (let i = 0; i < 3; i++) {
      await enqueue(`customer${i}@example.com`);
      clock.advance(1);
    }
    worker.start();
    await sending.promise;
    const stopping = worker.stop();
    send.resolve();
    await stopping;
    expect(sent.map((m) => m.to)).toEqual(["customer0@example.com"]);
    expect((await outbox.list()).map((m) => [m.status, m.attempts, m.nextAttemptAt])).toEqual([
      ["sent", 1, expect.any(Date)],
      ["pending", 0, clock.now()],
      ["pending", 0, clock.now()],
    ]);
  });

  test("stop() waits for the send in flight and records it before resolving", async () => {
    const sending = Promise.withResolvers<void>();
    const send = Promise.withResolvers<void>();
    const { mailer } = fakeMailer(() => {
      sending.resolve();
      return send.promise;
    });
    const { worker, enqueue, only } = setup(mailer);
    await enqueue();
    worker.start();
    await sending.promise;
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await settled();
    expect(stopped).toBe(false);
    send.resolve();
    await stopping;
    expect((await only()).status).toBe("sent");
  });
});
