import type { Transporter } from "nodemailer";
import { MailRefused, type Mailer } from "../../application/ports/mail.ts";

// nodemailer waits minutes by default; a hung server must fail the attempt so the worker moves on and retries later.
const TIMEOUT_MS = 10_000;

/** The SMTP commands whose 5xx refuses the message itself (its recipient, its content), not the shop's settings. */
const MESSAGE_COMMANDS = new Set(["RCPT TO", "DATA"]);

/**
 * Delivers through the SMTP server at `url` (smtp:// or smtps://, credentials in the url). With
 * credentials over smtp://, the server must offer STARTTLS (`requireTLS`), or the password would go
 * out in clear to anyone on the way who strips the offer; `?requireTLS=false` in the url allows it.
 * A send that is aborted is cut at once (the socket destroyed, not ended), so nothing buffered, the
 * message's last line included, goes out after it.
 */
export function createSmtpMailer(options: { url: string; from: string }): Mailer & { close(): void } {
  // nodemailer is loaded on the first message (some 20 MB a process that sends none would carry).
  let transport: Promise<Transporter> | undefined;
  const url = new URL(options.url);
  const domain = domainOf(options.from) ?? url.hostname;
  const open = async () => {
    const { createTransport } = await import("nodemailer");
    return createTransport(
      {
        url: options.url,
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
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
          signal,
        });
        // The Message-ID the message went out with, which a provider's delivery events name it by.
        return { messageId: typeof info.messageId === "string" ? info.messageId.replace(/^<|>$/g, "") : null };
      } catch (error) {
        const { responseCode, command } = error as { responseCode?: unknown; command?: unknown };
        if (typeof responseCode === "number" && responseCode >= 500 && typeof command === "string" && MESSAGE_COMMANDS.has(command))
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
