import { chmodSync, mkdirSync, statSync } from "node:fs";
import type { Logger } from "../application/ports/system.ts";

/**
 * DATA_DIR holds the session secret and the embedded database: its owner's alone (decisions §10).
 * Created 0700; one that already exists open to others (made by hand, or by an image's mkdir) is
 * closed to them, and the log says so.
 */
export function ensurePrivateDir(dir: string, logger: Logger): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { mode, uid } = statSync(dir);
  if ((mode & 0o077) === 0 || uid !== process.getuid?.()) return;
  chmodSync(dir, 0o700);
  logger.warn("data_dir.tightened", { dir, was: (mode & 0o777).toString(8), now: "700" });
}
