import type { Transporter } from "nodemailer";
import { MailRefused, type Mailer } from "../../application/ports/mail.ts";

/**
 * How long a connection and the server's greeting may each take: nodemailer waits minutes by
 * default, and nothing is sent yet, so a hung server fails the attempt cheaply and it is tried
 * again later. After the greeting, only the send's signal cuts it (the worker's deadline), however
 * long the server is quiet: its reply to the end of the message may come late (RFC 5321 allows it 10
 * minutes, a content scan takes seconds), and a cut before it comes sends the message again at
 * every try.
 */
const CONNECT_TIMEOUT_MS = 10_000;
/** The deadline of a send given no signal of its own: there is no idle timeout after the greeting. */
const SEND_DEADLINE_MS = 60_000;

/** The SMTP commands whose answer can refuse the message itself (its recipient, its content). */
const MESSAGE_COMMANDS = new Set(["RCPT TO", "DATA"]);
/**
 * A refusal of the message for good, by its enhanced status code (RFC 3463): the recipient's address
 * (5.1.x but the sender's, 5.1.7 and 5.1.8), the mailbox (5.2.x but a full one, 5.2.2, which RFC
 * 3463 calls persistent but transient), the message too big (5.3.4) or its content (5.6.x). A 5.7.x
 * is policy (a relay refused to the shop's credentials, SPF or DMARC), the sender's codes and a full
 * mailbox are the shop's to mend or pass, and a bare 5xx says too little: all are tried again.
 */
const REFUSED_FOR_GOOD = /^5\d\d[ -]5\.(1\.(?![78]\b)\d{1,3}|2\.(?!2\b)\d{1,3}|3\.4|6\.\d{1,3})\b/;

/**
 * Delivers through the SMTP server at `url` (smtp:// or smtps://, credentials in the url). With
 * credentials over smtp://, the server must offer STARTTLS (`requireTLS`), or the password would go
 * out in clear to anyone on the way who strips the offer; `?requireTLS=false` in the url allows it.
 * A send that is aborted is cut at once: the socket is destroyed, not ended, so what the process
 * still holds of the message is dropped rather than sent. What the operating system has taken
 * already still goes out (a message of tens of KB, whole, to a server that stopped reading), and a
 * server that then takes it has it twice after the retry, as when its answer is lost (found by an
 * attack): mail goes out at least once.
 */
export function createSmtpMailer(options: { url: string; from: string; connectTimeoutMs?: number }): Mailer & { close(): void } {
  // nodemailer is loaded on the first message (some 20 MB a process that sends none would carry).
  let transport: Promise<Transporter> | undefined;
  const url = new URL(options.url);
  const domain = domainOf(options.from) ?? url.hostname;
  const open = async () => {
    const { createTransport } = await import("nodemailer");
    return createTransport(
      {
        url: options.url,
        connectionTimeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        greetingTimeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        // No socketTimeout: nodemailer's own 10 minutes, the RFC's for the message's end; the send's signal cuts sooner.
        socketCloseTimeout: 0,
        // The url's own `requireTLS` comes after these, so it has the last word.
        requireTLS: url.protocol === "smtp:" && url.username !== "",
      },
      { from: options.from },
    );
  };
  return {
    async send(mail, { id, signal } = {}) {
      transport ??= open();
      try {
        // sendMail rejects when the server refuses the sender, the recipient or the message, and when `signal` aborts.
        const info = await (await transport).sendMail({
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html ?? undefined,
          ...(id ? { messageId: `<${id}@${domain}>` } : {}),
          signal: signal ?? AbortSignal.timeout(SEND_DEADLINE_MS),
        });
        // The Message-ID the message went out with, which a provider's delivery events name it by.
        return { messageId: typeof info.messageId === "string" ? info.messageId.replace(/^<|>$/g, "") : null };
      } catch (error) {
        const { response, command } = error as { response?: unknown; command?: unknown };
        if (typeof command === "string" && MESSAGE_COMMANDS.has(command) && typeof response === "string" && REFUSED_FOR_GOOD.test(response))
          throw new MailRefused((error as Error).message, { cause: error });
        throw error;
      }
    },
    close: () => void transport?.then((t) => t.close()),
  };
}

/** The domain of the sender's address (`Storefront <shop@example.com>`: example.com), for the Message-ID's right side. */
function domainOf(from: string): string | null {
  return /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? null;
}
