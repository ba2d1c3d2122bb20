import type { MailOutbox, OutboxMessage } from "../../application/ports/mail.ts";

/** Earliest due first, then oldest, as the PostgreSQL adapter claims them. */
function byDue(a: OutboxMessage, b: OutboxMessage): number {
  return a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || byCreation(a, b);
}

function byCreation(a: OutboxMessage, b: OutboxMessage): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function createMemoryMailOutbox(messages: Map<string, OutboxMessage>): MailOutbox {
  return {
    async backlog() {
      const count = (status: OutboxMessage["status"]) => [...messages.values()].filter((m) => m.status === status).length;
      return { pending: count("pending"), failed: count("failed") };
    },
    async enqueue(mail) {
      messages.set(mail.id, {
        id: mail.id,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        status: "pending",
        attempts: 0,
        nextAttemptAt: new Date(mail.createdAt),
        lastError: null,
        createdAt: new Date(mail.createdAt),
        sentAt: null,
        providerMessageId: null,
        deliveredAt: null,
      });
    },
    async claimDue(now, leaseUntil, limit) {
      const due = [...messages.values()]
        .filter((m) => m.status === "pending" && m.nextAttemptAt.getTime() <= now.getTime())
        .sort(byDue)
        .slice(0, limit);
      for (const message of due) {
        message.attempts += 1;
        message.nextAttemptAt = new Date(leaseUntil);
      }
      return due.map((m) => structuredClone(m));
    },
    async release(ids, leaseUntil, at) {
      for (const id of ids) {
        const message = messages.get(id);
        if (message?.status !== "pending" || message.nextAttemptAt.getTime() !== leaseUntil.getTime()) continue;
        message.attempts = Math.max(message.attempts - 1, 0);
        message.nextAttemptAt = new Date(at);
      }
    },
    async markSent(id, at, providerMessageId) {
      const message = messages.get(id);
      if (!message) return null;
      const was = message.status;
      message.status = "sent";
      message.sentAt = new Date(at);
      message.providerMessageId = providerMessageId;
      return was;
    },
    async markDelivered(providerMessageId, at) {
      const found = [...messages.values()].filter((m) => m.providerMessageId === providerMessageId);
      for (const message of found) message.deliveredAt = new Date(at);
      return found.length > 0;
    },
    async markSuppressed(which) {
      const found = [...messages.values()].filter((m) =>
        "id" in which ? m.id === which.id : m.status === "pending" && m.to.toLowerCase() === which.to.toLowerCase(),
      );
      for (const message of found) message.status = "suppressed";
      return found.length;
    },
    async markFailed(id, leaseUntil, error, retryAt) {
      const message = messages.get(id);
      if (message?.status !== "pending" || message.nextAttemptAt.getTime() !== leaseUntil.getTime()) return false;
      message.lastError = error;
      if (retryAt) message.nextAttemptAt = new Date(retryAt);
      else message.status = "failed";
      return true;
    },
    async list() {
      return [...messages.values()].sort(byCreation).map((m) => structuredClone(m));
    },
  };
}
