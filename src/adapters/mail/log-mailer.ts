import type { Mailer } from "../../application/ports/mail.ts";
import type { Logger } from "../../application/ports/system.ts";

/** The default when no SMTP server is configured: the mail goes to the log, the outbox row stays as its record. */
export function createLogMailer(logger: Logger): Mailer {
  return {
    async send(mail) {
      logger.info("mail.delivered_to_log", { to: mail.to, subject: mail.subject, text: mail.text });
      return { messageId: null };
    },
  };
}
