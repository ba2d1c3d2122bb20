import { afterAll, describe, expect, test } from "bun:test";
import type { AddressInfo } from "node:net";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { createOutboxWorker } from "../../src/application/mail/outbox-worker.ts";
import { createSmtpMailer } from "../../src/adapters/mail/smtp-mailer.ts";
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
async function startSmtpServer(options: Partial<SMTPServerOptions> = {}) {
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
  const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: "Storefront <shop@example.com>" });
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

    expect(await worker.runOnce()).toEqual({ sent: 0, retried: 1, failed: 0, suppressed: 0 });
    const [waiting] = await outbox.list();
    expect(waiting?.status).toBe("pending");
    expect(waiting?.lastError).toContain("451");
    expect(waiting!.nextAttemptAt.getTime()).toBeGreaterThan(clock.now().getTime());
    expect(received).toHaveLength(0);

    clock.set(waiting!.nextAttemptAt);
    expect(await worker.runOnce()).toEqual({ sent: 1, retried: 0, failed: 0, suppressed: 0 });
    const [delivered] = await outbox.list();
    expect(delivered?.status).toBe("sent");
    expect(received).toHaveLength(1);
  });
});
