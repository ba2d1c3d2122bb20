import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
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
  if (!existsSync(file)) keepNewSecret(file);
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o044) throw new Error(`${file} is readable by others (mode ${mode.toString(8)}); make it the owner's alone: chmod 600 ${file}`);
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < MIN_LENGTH) {
    throw new Error(`${file} holds a secret of ${secret.length} characters; it needs at least ${MIN_LENGTH} (delete the file to have a new one generated)`);
  }
  return { secret, source: `generated, kept in ${file}` };
}

/**
 * A new secret, written whole to a file of this process's own and synced, then linked in under the
 * secret's name, which a link never overwrites: a process killed while writing left an empty file
 * that stopped every later start until deleted by hand (found by an attack), and of two starting at
 * once the first to link wins and both use its secret.
 */
function keepNewSecret(file: string): void {
  const written = `${file}.${process.pid}.new`;
  const fd = openSync(written, "w", 0o600);
  try {
    writeSync(fd, Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url"));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(written, file);
  } catch (error) {
    // Made meanwhile by a process starting at the same moment: its secret is the one.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(written, { force: true });
  }
}
