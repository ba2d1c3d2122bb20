import { afterAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer } from "node:net";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { createOutboxWorker } from "../../src/application/mail/outbox-worker.ts";
import { createSmtpMailer } from "../../src/adapters/mail/smtp-mailer.ts";
import { MailRefused } from "../../src/application/ports/mail.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";

const createId = cuid2Ids.next;

interface ReceivedMail {
  from: string | null;
  to: string[];
  raw: string;
}

const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A real SMTP server on a free port that keeps every message it accepts. */
async function startSmtpServer(options: Partial<SMTPServerOptions> = {}, url = (port: number) => `smtp://127.0.0.1:${port}`) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const { mailFrom, rcptTo } = session.envelope;
        received.push({ from: mailFrom ? mailFrom.address : null, to: rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  const mailer = createSmtpMailer({ url: url(port), from: "Storefront <shop@example.com>" });
  closers.push(async () => {
    mailer.close();
    await new Promise<void>((resolve) => server.close(resolve));
  });
  return { mailer, received };
}

describe("SMTP mailer", () => {
  test("delivers text and html to the recipient, from the configured sender", async () => {
    const { mailer, received } = await startSmtpServer();
    await mailer.send({ to: "ada@example.com", subject: "Welcome to Storefront", text: "Hello Ada", html: "<p>Hello <b>Ada</b></p>" });
    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail?.from).toBe("shop@example.com");
    expect(mail?.to).toEqual(["ada@example.com"]);
    expect(mail?.raw).toContain("From: Storefront <shop@example.com>");
    expect(mail?.raw).toContain("To: ada@example.com");
    expect(mail?.raw).toContain("Subject: Welcome to Storefront");
    expect(mail?.raw).toContain("Content-Type: text/plain");
    expect(mail?.raw).toContain("Hello Ada");
    expect(mail?.raw).toContain("Content-Type: text/html");
    expect(mail?.raw).toContain("<p>Hello <b>Ada</b></p>");
  });

  test("a message the server refuses at first stays in the outbox and goes out on the retry", async () => {
    let refusedOnce = false;
    const { mailer, received } = await startSmtpServer({
      onMailFrom(_address, _session, callback) {
        if (refusedOnce) return callback();
        refusedOnce = true;
        callback(Object.assign(new Error("try later"), { responseCode: 451 }));
      },
    });
    const deps = createMemoryDeps({ mailer });
    const {
      clock,
      repos: { outbox },
    } = deps;
    const worker = createOutboxWorker(deps);
    await outbox.enqueue({ id: createId(), to: "ada@example.com", subject: "Welcome", text: "Hello", html: null, createdAt: clock.now() });

    expect(await worker.runOnce()).toEqual({ sent: 0, retried: 1, failed: 0, suppressed: 0, superseded: 0 });
    const [waiting] = await outbox.list();
    expect(waiting?.status).toBe("pending");
    expect(waiting?.lastError).toContain("451");
    expect(waiting!.nextAttemptAt.getTime()).toBeGreaterThan(clock.now().getTime());
    expect(received).toHaveLength(0);

    clock.set(waiting!.nextAttemptAt);
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    const [delivered] = await outbox.list();
    expect(delivered?.status).toBe("sent");
    expect(received).toHaveLength(1);
  });

  test("every try of a message goes out under one Message-ID, made of its outbox id, so a copy a lost answer made can be told from a second message", async () => {
    const { mailer, received } = await startSmtpServer();
    const mail = { to: "ada@example.com", subject: "Welcome", text: "Hello", html: null };
    const first = await mailer.send(mail, { id: "welcome1" });
    await mailer.send(mail, { id: "welcome1" });
    expect(first.messageId).toBe("welcome1@example.com");
    expect(received.map((m) => /^Message-ID: (.*)$/im.exec(m.raw)?.[1]?.trim())).toEqual(["<welcome1@example.com>", "<welcome1@example.com>"]);
  });

  test("a send whose signal aborts is cut at once, the connection closed: a server answering a byte at a time never goes quiet long enough for the socket's timeout (found by an attack)", async () => {
    const closed = Promise.withResolvers<void>();
    const dripping = createServer((socket) => {
      const drip = setInterval(() => socket.write("2"), 20);
      socket.on("close", () => {
        clearInterval(drip);
        closed.resolve();
      });
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => dripping.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => dripping.close(() => resolve())));
    const { port } = dripping.address() as AddressInfo;
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: "shop@example.com" });
    const started = performance.now();
    const sending = mailer.send({ to: "ada@example.com", subject: "Hi", text: "Hi", html: null }, { signal: AbortSignal.timeout(300) });
    await expect(sending).rejects.toThrow();
    await closed.promise;
    // Well under the connect timeout's 10 s: the signal cut it, not a timeout of nodemailer's own.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("a server slow to confirm the end of the message is waited for until the send's deadline, not cut by a timeout of the socket's: a cut there mailed it again at every try (found by an attack)", async () => {
    const received: string[] = [];
    const slow = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, _session, callback) {
        stream.on("end", () => {
          received.push("message");
          // A content scan: the reply to the message's end comes well after the connect timeout below.
          setTimeout(callback, 2_000);
        });
        stream.resume();
      },
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const { port } = slow.server.address() as AddressInfo;
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: "shop@example.com", connectTimeoutMs: 1_000 });
    closers.push(async () => {
      mailer.close();
      await new Promise<void>((resolve) => slow.close(resolve));
    });
    const deps = createMemoryDeps({ mailer });
    const worker = createOutboxWorker(deps);
    await deps.repos.outbox.enqueue({ id: createId(), to: "ada@example.com", subject: "Welcome", text: "Hello", html: null, createdAt: deps.clock.now() });

    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0, superseded: 0 });
    expect((await deps.repos.outbox.list()).map((m) => m.status)).toEqual(["sent"]);
    expect(received).toHaveLength(1);
  });

  test("a refusal of the recipient or the content for good (5.1.x, 5.2.x, 5.3.4, 5.6.x, at RCPT TO or at the end of DATA) is MailRefused; policy (5.7.x, a relay refused to the shop's credentials), the sender's codes (5.1.7, 5.1.8, at RCPT TO too), a full mailbox, a bare 5xx, a 4xx or a refused sender are tried again", async () => {
    const refusing = (stage: "mail" | "rcpt" | "data", responseCode: number, text: string) => {
      const refusal = () => Object.assign(new Error(text), { responseCode });
      if (stage === "data")
        // The message's end refused, once its content has come (its size, its content).
        return startSmtpServer({ onData: (stream, _session, callback) => stream.on("end", () => callback(refusal())).resume() });
      return startSmtpServer({
        [stage === "mail" ? "onMailFrom" : "onRcptTo"](_address: unknown, _session: unknown, callback: (error?: Error) => void) {
          callback(refusal());
        },
      });
    };
    const mail = { to: "nobody@example.com", subject: "Hi", text: "Hi", html: null };
    const outcomes: Record<string, string> = {};
    for (const [stage, code, text] of [
      ["rcpt", 550, "5.1.1 No such user here"],
      ["rcpt", 550, "5.2.1 Mailbox disabled"],
      ["rcpt", 552, "5.2.2 Mailbox full"],
      ["rcpt", 550, "5.1.8 Access denied, bad outbound sender"],
      ["rcpt", 554, "5.7.1 Relay access denied"],
      ["rcpt", 550, "Rejected"],
      ["rcpt", 450, "4.2.1 Try later"],
      ["mail", 550, "5.1.8 Bad sender domain"],
      ["data", 552, "5.3.4 Message too big for system"],
      ["data", 554, "5.6.0 Content rejected"],
      ["data", 554, "5.7.1 Message rejected as spam"],
      ["data", 451, "4.3.0 Try again later"],
    ] as const) {
      const { mailer } = await refusing(stage, code, text);
      outcomes[`${stage} ${code} ${text}`] = await mailer.send(mail).then(
        () => "sent",
        (error: unknown) => (error instanceof MailRefused ? "refused for good" : "tried again"),
      );
    }
    expect(outcomes).toEqual({
      "rcpt 550 5.1.1 No such user here": "refused for good",
      "rcpt 550 5.2.1 Mailbox disabled": "refused for good",
      "rcpt 552 5.2.2 Mailbox full": "tried again",
      "rcpt 550 5.1.8 Access denied, bad outbound sender": "tried again",
      "rcpt 554 5.7.1 Relay access denied": "tried again",
      "rcpt 550 Rejected": "tried again",
      "rcpt 450 4.2.1 Try later": "tried again",
      "mail 550 5.1.8 Bad sender domain": "tried again",
      "data 552 5.3.4 Message too big for system": "refused for good",
      "data 554 5.6.0 Content rejected": "refused for good",
      "data 554 5.7.1 Message rejected as spam": "tried again",
      "data 451 4.3.0 Try again later": "tried again",
    });
  });

  test("credentials over smtp:// go only over TLS: a server that offers no STARTTLS gets no password (the send fails), unless the url says requireTLS=false", async () => {
    const logins: string[] = [];
    const options: Partial<SMTPServerOptions> = {
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        logins.push(`${auth.username}:${auth.password}`);
        callback(null, { user: auth.username });
      },
    };
    const mail = { to: "ada@example.com", subject: "Hi", text: "Hi", html: null };
    const strict = await startSmtpServer(options, (port) => `smtp://shop:s3cret@127.0.0.1:${port}`);
    await expect(strict.mailer.send(mail)).rejects.toThrow(/STARTTLS/);
    expect(logins).toEqual([]);
    const allowed = await startSmtpServer(options, (port) => `smtp://shop:s3cret@127.0.0.1:${port}?requireTLS=false`);
    await allowed.mailer.send(mail);
    expect(logins).toEqual(["shop:s3cret"]);
    expect(allowed.received).toHaveLength(1);
  });
});
