import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
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
  sweepAbandoned(dataDir);
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
 * A new secret, written whole to a file of its own (named at random: containers sharing a DATA_DIR
 * all run as process 1) and synced, then linked in under the secret's name, which a link never
 * overwrites: a process killed while writing left an empty file that stopped every later start until
 * deleted by hand (found by an attack), and of several starting at once the first to link wins and
 * all use its secret. A file system without hard links (some network shares) gets the file made in
 * place, as before.
 */
function keepNewSecret(file: string): void {
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
  const written = `${file}.${crypto.randomUUID()}.new`;
  writeWhole(written, secret);
  try {
    linkSync(written, file);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // A file system without hard links: renamed in whole instead, unless one was made meanwhile
    // (two starting at that very moment may each rename theirs: the last stays, and both read it back).
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") {
      if (!existsSync(file)) renameSync(written, file);
    }
    // Made meanwhile by a process starting at the same moment: its secret is the one.
    else if (code !== "EEXIST") throw error;
  } finally {
    rmSync(written, { force: true });
  }
}

/** A new file holding `text`, made only if there is none (mode 0600), and synced; one made meanwhile by another process is left as it is. */
function writeWhole(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw error;
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A start's own file is gone once its secret is linked in; one killed before that left it: swept once it is a minute old (another start's may be in use). */
function sweepAbandoned(dataDir: string): void {
  const before = Date.now() - 60_000;
  for (const name of readdirSync(dataDir)) {
    if (!/^auth-secret\..+\.new$/.test(name)) continue;
    const path = join(dataDir, name);
    try {
      if (statSync(path).mtimeMs < before) rmSync(path, { force: true });
    } catch {
      // Gone meanwhile.
    }
  }
}
