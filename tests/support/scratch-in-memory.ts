import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Preloaded by `bun test` (bunfig.toml). The tests' scratch files (an embedded database copied for a
 * test is a thousand files; servers' DATA_DIRs, exports, the browser's profile) go to memory, to
 * /dev/shm where the machine has it, unless TMPDIR names a place already. Creating and deleting tens
 * of thousands of files a run on the disk's file system cost the suite a twentieth of its CPU (the
 * kernel's search for a free inode, an ext4 without a journal). Processes the tests start inherit it
 * through the environment.
 */
const MEMORY = "/dev/shm";

function inMemory(): string | null {
  try {
    if (!statSync(MEMORY).isDirectory()) return null;
    const dir = join(MEMORY, "storefront-tests");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    // No /dev/shm (macOS), or not ours to write: the system's temporary directory, as before.
    return null;
  }
}

if (!process.env.TMPDIR) {
  const dir = inMemory();
  if (dir) process.env.TMPDIR = dir;
}
