import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../application/ports/system.ts";
import { ensurePrivateDir } from "../private-dir.ts";

const MIN_LENGTH = 32;

/**
 * AUTH_SECRET when configured; otherwise (development only, config refuses it in production) a
 * random secret generated once and kept in DATA_DIR (created 0700, the file 0600), so sessions
 * survive restarts. Decisions §10: a kept secret shorter than 32 characters, or readable by
 * anyone but its owner, stops the start instead of signing sessions with it.
 */
export function resolveAuthSecret(configured: string | null, dataDir: string, logger: Logger): { secret: string; source: string } {
  if (configured) return { secret: configured, source: "AUTH_SECRET" };
  const file = join(dataDir, "auth-secret");
  ensurePrivateDir(dataDir, logger);
  try {
    const fd = openSync(file, "wx", 0o600);
    writeSync(fd, Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url"));
    closeSync(fd);
  } catch (error) {
    // Already there (kept from before, or just made by a process starting at the same moment).
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o044) throw new Error(`${file} is readable by others (mode ${mode.toString(8)}); make it the owner's alone: chmod 600 ${file}`);
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < MIN_LENGTH) {
    throw new Error(`${file} holds a secret of ${secret.length} characters; it needs at least ${MIN_LENGTH} (delete the file to have a new one generated)`);
  }
  return { secret, source: `generated, kept in ${file}` };
}
