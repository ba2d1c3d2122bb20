import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { OutgoingMail } from "../../src/application/ports/mail.ts";
import type { ContractTarget } from "./targets.ts";

const createId = cuid2Ids.next;

const start = new Date("2026-11-22T12:00:00Z").getTime();
const at = (seconds: number) => new Date(start + seconds * 1000);
const forever = at(365 * 24 * 3600);

function aMail(overrides: Partial<OutgoingMail & { createdAt: Date }> = {}) {
  return { id: createId(), to: "ada@example.com", subject: "Welcome", text: "Hello", html: null, createdAt: at(0), ...overrides };
}

export function mailOutboxContract(target: () => ContractTarget) {
  describe("MailOutbox", () => {
    const outbox = () => target().repos.outbox;
    const claimIds = async (now: Date, leaseUntil: Date, limit = 10) => (await outbox().claimDue(now, leaseUntil, limit)).map((m) => m.id).sort();

    test("an enqueued message lists whole, pending and due at once, oldest first", async () => {
      const later = aMail({ to: "bo@example.com", html: "<p>Hi</p>", createdAt: at(2) });
      const earlier = aMail({ createdAt: at(1) });
      await outbox().enqueue(later);
      await outbox().enqueue(earlier);
      const untried = { status: "pending", attempts: 0, lastError: null, sentAt: null, providerMessageId: null, deliveredAt: null } as const;
      expect(await outbox().list()).toEqual([
        { ...earlier, ...untried, nextAttemptAt: at(1) },
        { ...later, ...untried, nextAttemptAt: at(2) },
      ]);
    });

    test("claims only pending messages that are due, and counts the attempt", async () => {
      const due = aMail({ createdAt: at(0) });
      const notYet = aMail({ createdAt: at(60) });
      await outbox().enqueue(due);
      await outbox().enqueue(notYet);
      const claimed = await outbox().claimDue(at(30), at(330), 10);
      expect(claimed).toEqual([expect.objectContaining({ id: due.id, status: "pending", attempts: 1, nextAttemptAt: at(330) })]);
      expect((await outbox().list()).map((m) => m.attempts)).toEqual([1, 0]);
    });

    test("claims the earliest due first, then the oldest, up to the limit", async () => {
      const [a, b, c] = [aMail({ createdAt: at(1) }), aMail({ createdAt: at(2) }), aMail({ createdAt: at(3) })];
      for (const mail of [a, b, c]) await outbox().enqueue(mail);
      await outbox().claimDue(at(10), at(20), 10);
      await outbox().markFailed(a.id, at(20), "busy", at(50));
      await outbox().markFailed(b.id, at(20), "busy", at(40));
      await outbox().markFailed(c.id, at(20), "busy", at(40));
      expect(await claimIds(at(60), at(90), 1)).toEqual([b.id]);
      expect(await claimIds(at(60), at(90), 1)).toEqual([c.id]);
      expect(await claimIds(at(60), at(90), 1)).toEqual([a.id]);
    });

    test("a claimed message stays hidden until its lease ends, then comes back", async () => {
      const mail = aMail();
      await outbox().enqueue(mail);
      expect(await claimIds(at(0), at(300))).toEqual([mail.id]);
      expect(await claimIds(at(0), at(300))).toEqual([]);
      expect(await claimIds(new Date(at(300).getTime() - 1), at(600))).toEqual([]);
      const [reclaimed] = await outbox().claimDue(at(300), at(600), 10);
      expect(reclaimed).toMatchObject({ id: mail.id, attempts: 2 });
    });

    test("claimed messages handed back untried are due again when told, their claim's attempt not counted; a sent one is left as it is", async () => {
      const [untried, sent] = [aMail({ createdAt: at(1) }), aMail({ createdAt: at(2) })];
      for (const mail of [untried, sent]) await outbox().enqueue(mail);
      await outbox().claimDue(at(2), at(300), 10);
      await outbox().markSent(sent.id, at(5), null);
      await outbox().release([untried.id, sent.id], at(300), at(6));
      expect((await outbox().list()).map((m) => [m.id, m.status, m.attempts, m.nextAttemptAt])).toEqual([
        [untried.id, "pending", 0, at(6)],
        [sent.id, "sent", 1, at(300)],
      ]);
      expect(await claimIds(at(6), at(306))).toEqual([untried.id]);
    });

    test("a claim whose lease has ended hands back nothing another claim holds since (found by a review)", async () => {
      const mail = aMail();
      await outbox().enqueue(mail);
      await outbox().claimDue(at(0), at(300), 10);
      // The first claim's lease is over; another instance claims the message and is sending it.
      await outbox().claimDue(at(300), at(600), 10);
      await outbox().release([mail.id], at(300), at(310));
      expect(await outbox().list()).toEqual([expect.objectContaining({ id: mail.id, status: "pending", attempts: 2, nextAttemptAt: at(600) })]);
      expect(await claimIds(at(310), at(610))).toEqual([]);
    });

    test("a sent message records when, and the provider's id of it, and is never claimed again", async () => {
      const mail = aMail();
      await outbox().enqueue(mail);
      await outbox().claimDue(at(0), at(300), 10);
      await outbox().markSent(mail.id, at(5), "provider-msg-1");
      expect(await outbox().list()).toEqual([expect.objectContaining({ id: mail.id, status: "sent", sentAt: at(5), providerMessageId: "provider-msg-1" })]);
      expect(await claimIds(forever, forever)).toEqual([]);
    });

    test("a delivery is marked on the message the provider knows by that id", async () => {
      const mail = aMail();
      await outbox().enqueue(mail);
      await outbox().markSent(mail.id, at(5), "provider-msg-2");
      expect(await target().uow.transaction((tx) => tx.outbox.markDelivered("provider-msg-2", at(9)))).toBe(true);
      expect(await target().uow.transaction((tx) => tx.outbox.markDelivered("provider-msg-unknown", at(9)))).toBe(false);
      expect(await outbox().list()).toEqual([expect.objectContaining({ id: mail.id, status: "sent", deliveredAt: at(9) })]);
    });

    test("suppressing an address marks its pending mail suppressed, whatever its case, and it is never claimed", async () => {
      const [pending, other, sent] = [aMail({ to: "Bounce@Example.com" }), aMail({ to: "fine@example.com" }), aMail({ to: "bounce@example.com" })];
      for (const m of [pending, other, sent]) await outbox().enqueue(m);
      await outbox().markSent(sent.id, at(1), null);
      expect(await target().uow.transaction((tx) => tx.outbox.markSuppressed({ to: "bounce@example.com" }))).toBe(1);
      expect(Object.fromEntries((await outbox().list()).map((m) => [m.id, m.status]))).toEqual({
        [pending.id]: "suppressed",
        [other.id]: "pending",
        [sent.id]: "sent",
      });
      expect(await claimIds(forever, forever)).toEqual([other.id]);
    });

    test("marking a message sent says the status it had: pending, or suppressed when a bounce for its address came while it was being sent; it is sent all the same", async () => {
      const [plain, bounced] = [aMail({ to: "fine@example.com" }), aMail({ to: "bounce@example.com" })];
      for (const m of [plain, bounced]) await outbox().enqueue(m);
      await outbox().claimDue(at(0), at(300), 10);
      expect(await target().uow.transaction((tx) => tx.outbox.markSuppressed({ to: "bounce@example.com" }))).toBe(1);
      expect(await target().uow.transaction((tx) => tx.outbox.markSent(plain.id, at(5), "msg-1"))).toBe("pending");
      expect(await target().uow.transaction((tx) => tx.outbox.markSent(bounced.id, at(6), "msg-2"))).toBe("suppressed");
      expect(await target().uow.transaction((tx) => tx.outbox.markSent("no-such-message", at(7), "msg-3"))).toBeNull();
      expect(Object.fromEntries((await outbox().list()).map((m) => [m.id, [m.status, m.sentAt, m.providerMessageId]]))).toEqual({
        [plain.id]: ["sent", at(5), "msg-1"],
        [bounced.id]: ["sent", at(6), "msg-2"],
      });
    });

    test("a failed attempt with a retry date is due again at that date, with its error", async () => {
      const mail = aMail();
      await outbox().enqueue(mail);
      await outbox().claimDue(at(0), at(300), 10);
      expect(await outbox().markFailed(mail.id, at(300), "451 try later", at(30))).toBe(true);
      expect(await outbox().list()).toEqual([expect.objectContaining({ status: "pending", attempts: 1, nextAttemptAt: at(30), lastError: "451 try later" })]);
      expect(await claimIds(at(29), at(300))).toEqual([]);
      const [retry] = await outbox().claimDue(at(30), at(330), 10);
      expect(retry).toMatchObject({ id: mail.id, attempts: 2, lastError: "451 try later" });
    });

    test("a message given up is kept as failed and never claimed again", async () => {
      const mail = aMail();
      await outbox().enqueue(mail);
      await outbox().claimDue(at(0), at(300), 10);
      expect(await outbox().markFailed(mail.id, at(300), "550 no such user", null)).toBe(true);
      expect(await outbox().list()).toEqual([expect.objectContaining({ id: mail.id, status: "failed", attempts: 1, lastError: "550 no such user" })]);
      expect(await claimIds(forever, forever)).toEqual([]);
    });

    test("a failure recorded after the claim's lease ended changes nothing another instance did since: sent it, or claimed it to send (found by a review)", async () => {
      const [sentSince, claimedSince] = [aMail(), aMail()];
      for (const mail of [sentSince, claimedSince]) await outbox().enqueue(mail);
      await outbox().claimDue(at(0), at(300), 10);
      // The first claim's lease is over; another instance claims both, and sends the first.
      await outbox().claimDue(at(300), at(600), 10);
      await outbox().markSent(sentSince.id, at(310), "msg-1");
      // The first instance's failures, recorded late (a give-up and a retry), say that they changed nothing.
      expect(await outbox().markFailed(sentSince.id, at(300), "timeout", null)).toBe(false);
      expect(await outbox().markFailed(claimedSince.id, at(300), "timeout", at(320))).toBe(false);
      const byId = new Map((await outbox().list()).map((m) => [m.id, m]));
      expect(byId.get(sentSince.id)).toMatchObject({ status: "sent", lastError: null });
      expect(byId.get(claimedSince.id)).toMatchObject({ status: "pending", nextAttemptAt: at(600), lastError: null });
      // Still hidden by the second claim: no third instance takes it while the second may be sending it.
      expect(await claimIds(at(320), at(620))).toEqual([]);
    });

    test("the backlog counts the mail waiting (claimed or not, due or not) and the mail given up on; sent and suppressed mail is neither", async () => {
      expect(await outbox().backlog()).toEqual({ pending: 0, failed: 0 });
      const [waiting, later, claimed, sent, failed, suppressed] = [0, 60, 0, 0, 0, 0].map((seconds) => aMail({ createdAt: at(seconds) }));
      for (const mail of [waiting, later, claimed, sent, failed, suppressed]) await outbox().enqueue(mail!);
      await outbox().claimDue(at(0), at(300), 10);
      await outbox().markFailed(waiting!.id, at(300), "451 try later", at(30));
      await outbox().markSent(sent!.id, at(1), "msg-1");
      await outbox().markFailed(failed!.id, at(300), "550 no such user", null);
      await outbox().markSuppressed({ id: suppressed!.id });
      expect(await outbox().backlog()).toEqual({ pending: 3, failed: 1 });
    });
  });
}
