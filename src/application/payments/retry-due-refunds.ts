import { REFUND_ATTEMPT_LEASE_MS, REFUND_RETRY_MS } from "../../domain/refund.ts";
import type { Deps } from "../ports/index.ts";
import { workThroughDue } from "../system/work-through-due.ts";
import { askForRefund } from "./refunds.ts";

/** How many refunds one claim takes; a run claims on until none is due, or for as long as workThroughDue allows. */
const BATCH = 20;

/**
 * Housekeeping's refund step (decisions §15): every refund marked due and not confirmed is asked
 * again, under its own idempotency key, until the processor answers. A refund is claimed with a
 * lease (SKIP LOCKED), so instances running at once never ask for the same one, and one whose
 * attempt is still in flight (or whose process died in it) waits until the attempt's time is over.
 * A run ends: each refund is asked at most once in it, as a failed one is due again only after
 * REFUND_RETRY_MS, and the run claims no more once it has lasted that long.
 */
export async function retryDueRefunds(deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">): Promise<{ made: number; due: number }> {
  const tally = { made: 0, due: 0 };
  await workThroughDue(
    deps.clock,
    { batch: BATCH, windowMs: Math.min(REFUND_RETRY_MS, REFUND_ATTEMPT_LEASE_MS) },
    (now) => deps.uow.transaction((tx) => tx.refunds.claimDue(now, new Date(now.getTime() + REFUND_ATTEMPT_LEASE_MS), BATCH)),
    async (refund) => void tally[await askForRefund(deps, refund)]++,
  );
  return tally;
}
