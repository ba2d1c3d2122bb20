import type { Transporter } from "nodemailer";
import type { Mailer } from "../../application/ports/mail.ts";

// nodemailer waits minutes by default; a hung server must fail the attempt so the worker moves on and retries later.
const TIMEOUT_MS = 10_000;

/** Delivers through the SMTP server at `url` (smtp:// or smtps://, credentials in the url). */
export function createSmtpMailer(options: { url: string; from: string }): Mailer & { close(): void } {
  // nodemailer is loaded on the first message (some 20 MB a process that sends none would carry).
  let transport: Promise<Transporter> | undefined;
  const open = async () => {
    const { createTransport } = await import("nodemailer");
    return createTransport({ url: options.url, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS }, { from: options.from });
  };
  return {
    async send(mail) {
      transport ??= open();
      // sendMail rejects when the server refuses the sender, the recipient or the message.
      const info = await (await transport).sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? undefined });
      // The Message-ID the message went out with, which a provider's delivery events name it by.
      return { messageId: typeof info.messageId === "string" ? info.messageId.replace(/^<|>$/g, "") : null };
    },
    close: () => void transport?.then((t) => t.close()),
  };
}
