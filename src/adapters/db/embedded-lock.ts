import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

/** Another live process has the embedded database open. */
export class EmbeddedDatabaseInUse extends Error {
  override name = "EmbeddedDatabaseInUse";
}

interface Holder {
  pid: number;
  command: string;
  since: string;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

function readHolder(file: string): { raw: string; holder: Holder | null } | null {
  try {
    const raw = readFileSync(file, "utf8");
    try {
      return { raw, holder: JSON.parse(raw) as Holder };
    } catch {
      return { raw, holder: null };
    }
  } catch {
    return null;
  }
}

/**
 * Decisions §10: an embedded (PGlite) database belongs to one process; a second one opening the
 * same files would serve from its own copy of them and lose writes. The lock is a file created
 * exclusively (O_EXCL) beside the database, naming its holder. A lock whose holder is gone (a
 * crash, a kill) is taken over, but only if it still says what was read, so two starters cannot
 * both take it. (proper-lockfile judges staleness by age and cannot name the holder.)
 */
export function lockEmbeddedDatabase(file: string, label: string): { release(): void } {
  const mine = JSON.stringify({ pid: process.pid, command: process.argv.slice(1).join(" "), since: new Date().toISOString() } satisfies Holder);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, mine);
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (readHolder(file)?.raw === mine) unlinkSync(file);
      };
      process.once("exit", release);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const found = readHolder(file);
    const holder = found?.holder;
    // Our own pid in it means the process before us died with it (a container restarts as pid 1 again).
    if (holder && holder.pid !== process.pid && alive(holder.pid)) {
      throw new EmbeddedDatabaseInUse(`${label} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}): one process per embedded database; stop that one first`);
    }
    if (found && readHolder(file)?.raw === found.raw) unlinkSync(file);
  }
  throw new EmbeddedDatabaseInUse(`${label}: could not take the lock ${file}`);
}
