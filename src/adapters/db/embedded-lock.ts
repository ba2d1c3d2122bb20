import { FFIType, dlopen, read, suffix } from "bun:ffi";
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { constants } from "node:os";

const LOCK_EX = 2;
const LOCK_NB = 4;

// Node has no flock; libc has, and the kernel keeps it honest: a lock dies with its process, however
// that process ends, so no lock is ever stale and no reused process id can hold one.
const LIBC = process.platform === "linux" ? "libc.so.6" : `libc.${suffix}`;
const libc = dlopen(LIBC, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
/** Why the last call failed (errno), read at once after it: glibc's `__errno_location`, macOS's `__error`. */
const errnoAt =
  process.platform === "linux"
    ? dlopen(LIBC, { __errno_location: { args: [], returns: FFIType.ptr } }).symbols.__errno_location
    : dlopen(LIBC, { __error: { args: [], returns: FFIType.ptr } }).symbols.__error;
const lastErrno = () => read.i32(errnoAt()!, 0);
/** What flock answers where a file system cannot lock a directory at all. */
const UNLOCKABLE = new Set([constants.errno.EBADF, constants.errno.ENOLCK, constants.errno.EOPNOTSUPP, constants.errno.EINVAL, constants.errno.ENOTSUP]);

/**
 * Decisions §10: an embedded (PGlite) database belongs to one process; a second one opening the
 * same files would serve from its own copy of them and lose writes. The lock is an exclusive
 * flock on a file beside the database, held for the life of the process; the file names its
 * holder for whoever is refused. It is never removed: a process that opened it before the removal
 * could still lock the old file while another locks a new one.
 *
 * With `directory`, the database's directory is locked too, in the same way: a process that reaches
 * it by another path (a bind mount, or a volume another container mounts at its own path) finds
 * its lock file elsewhere, but not another directory (found by an attack: a CLI write through a
 * bind mount was acknowledged, then lost).
 */
export function lockEmbeddedDatabase(file: string, label: string, directory?: string): { release(): void; directoryLocked: boolean } {
  const fd = openSync(file, "a+", 0o600);
  if (libc.symbols.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    closeSync(fd);
    throw new Error(`${label} is in use by ${holderOf(file)}: one process per embedded database; stop that one first`);
  }
  let dirFd: number | null = null;
  try {
    dirFd = directory === undefined ? null : openSync(directory, "r");
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  let directoryLocked = dirFd !== null;
  if (dirFd !== null && libc.symbols.flock(dirFd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = lastErrno();
    closeSync(dirFd);
    dirFd = null;
    directoryLocked = false;
    // A file system that cannot lock a directory (NFS takes an exclusive flock only on a file open
    // for writing): the lock file alone keeps the database, as before. Anything else refuses.
    if (!UNLOCKABLE.has(errno)) {
      closeSync(fd);
      throw new Error(
        errno === constants.errno.EWOULDBLOCK
          ? `${label} is in use by another process, which opened it by another path (a bind mount, or a volume mounted elsewhere): one process per embedded database; stop that one first`
          : `${label} could not be locked (errno ${errno}): one process per embedded database, and this one cannot tell`,
      );
    }
  }
  ftruncateSync(fd, 0);
  writeSync(fd, JSON.stringify({ pid: process.pid, command: holderCommand(process.argv), since: new Date().toISOString() }), 0);
  let held = true;
  return {
    directoryLocked,
    release() {
      if (!held) return;
      held = false;
      if (dirFd !== null) closeSync(dirFd);
      closeSync(fd);
    },
  };
}

/**
 * The holder as the lock file names it, to whoever is refused (and to the log): the program and its
 * command, up to the first option. Never the options: `user:create --password …` put a password
 * in the file, and in the next refused server's log line (found by an attack).
 */
export function holderCommand(argv: readonly string[]): string {
  const words = argv.slice(1);
  const firstOption = words.findIndex((word) => word.startsWith("-"));
  return (firstOption < 0 ? words : words.slice(0, firstOption)).join(" ");
}

function holderOf(file: string): string {
  try {
    const { pid, command, since } = JSON.parse(readFileSync(file, "utf8")) as { pid: number; command: string; since: string };
    return `process ${pid} (${command}, since ${since})`;
  } catch {
    // Caught between its lock and its writing down who it is.
    return "another process";
  }
}
