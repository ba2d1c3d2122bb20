import type { Logger } from "../ports/system.ts";
import { failureOf, isDatabaseRefusal } from "../../domain/errors.ts";

/**
 * Runs `work` every `intervalMs` while started: one run at a time, a failure logged (as `event`, at
 * error; a refusal of the database's at warn) and the next run scheduled all the same. `notify`
 * asks for a run now; one asked for during a run follows right after it. `stop` waits for the run
 * in flight. The timer never keeps a finished process alive: what the work handles is safe in the
 * database until the next start.
 */
export function periodic(work: () => Promise<unknown>, options: { intervalMs: number; logger: Logger; event: string }) {
  let active = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> | null = null;
  let runAgain = false;

  function runExclusively(): Promise<void> {
    if (inFlight) {
      runAgain = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        runAgain = false;
        // The database refusing (away, taking no writes) is told of by the requests and readiness too:
        // at warn here, or each poll of the outbox was one more error line for as long as it lasted.
        await work().catch((error) => options.logger[isDatabaseRefusal(error) ? "warn" : "error"](options.event, failureOf(error)));
      } while (runAgain && active);
    })().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  function schedule(delayMs: number) {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      await runExclusively();
      if (active) schedule(options.intervalMs);
    }, delayMs);
    timer.unref();
  }

  return {
    start() {
      active = true;
      schedule(0);
    },
    notify() {
      if (active) schedule(0);
    },
    async stop() {
      active = false;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
