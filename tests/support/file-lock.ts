import { lockEmbeddedDatabase } from "../../src/adapters/db/embedded-lock.ts";

/**
 * An exclusive lock on `file` (the embedded database's flock, which dies with its process), once
 * the process holding it lets it go; five minutes at most. Test files running at once that need the
 * same thing made (a template, an unpacked browser) wait for the first to make it.
 */
export function waitForLock(file: string, label: string): { release(): void } {
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      return lockEmbeddedDatabase(file, label);
    } catch (error) {
      if (!(error instanceof Error && error.message.includes("is in use by")) || Date.now() > deadline) throw error;
      Bun.sleepSync(100);
    }
  }
}
