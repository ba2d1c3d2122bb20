import { createTransport } from "nodemailer";
import type { Mailer } from "../../application/ports/mail.ts";

// nodemailer waits minutes by default; a hung server must fail the attempt so the worker moves on and retries later.
const TIMEOUT_MS = 10_000;

/** Delivers through the SMTP server at `url` (smtp:// or smtps://, credentials in the url). */
export function createSmtpMailer(options: { url: string; from: string }): Mailer & { close(): void } {
  const transport = createTransport(
    { url: options.url, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS },
    { from: options.from },
  );
  return {
    async send(mail) {
      // sendMail rejects when the server refuses the sender, the recipient or the message.
      await transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? undefined });
    },
    close: () => transport.close(),
  };
}
