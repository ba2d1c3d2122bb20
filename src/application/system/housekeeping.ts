import type { Deps } from "../ports/index.ts";
import { periodic } from "./periodic.ts";

/**
 * What the server tidies up now and then: sessions that have ended (a token naming one is refused
 * either way). Every instance may run it; each step is safe to run twice at once.
 */
export function createHousekeeping(deps: Pick<Deps, "uow" | "clock" | "logger">, options: { intervalMs: number }) {
  async function runOnce() {
    const sessionsPurged = await deps.uow.transaction((tx) => tx.sessions.purgeEnded(deps.clock.now()));
    if (sessionsPurged > 0) deps.logger.info("housekeeping.done", { sessionsPurged });
    return { sessionsPurged };
  }
  return { runOnce, ...periodic(runOnce, { intervalMs: options.intervalMs, logger: deps.logger, event: "housekeeping.failed" }) };
}
