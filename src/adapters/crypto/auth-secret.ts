import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * AUTH_SECRET when configured; otherwise (development only, config refuses it in production) a
 * random secret generated once and kept in DATA_DIR, so sessions survive restarts.
 */
export function resolveAuthSecret(configured: string | null, dataDir: string): { secret: string; source: string } {
  if (configured) return { secret: configured, source: "AUTH_SECRET" };
  const file = join(dataDir, "auth-secret");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    const bytes = crypto.getRandomValues(new Uint8Array(48));
    writeFileSync(file, Buffer.from(bytes).toString("base64url"), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { secret: readFileSync(file, "utf8").trim(), source: `generated, kept in ${file}` };
}
