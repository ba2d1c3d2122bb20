import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitForLock } from "./file-lock.ts";

const MIGRATIONS = join(import.meta.dir, "../../src/adapters/db/migrations");

/**
 * A PGlite directory with every migration applied, made once (by the CLI's db:migrate, as a
 * newcomer would) and kept in the temporary directory under a name that hashes the migrations, the
 * PGlite version and the shop's way of opening it, so a changed migration makes a new one. Creating an embedded database
 * (initdb in WebAssembly, then the migrations) takes seconds; a copy takes milliseconds, so a
 * process test whose subject is not the embedded database's creation starts from a copy.
 */
function template(): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(import.meta.dir, "../../node_modules/@electric-sql/pglite/package.json")));
  // How the shop opens the database (what it leaves in the directory, such as its mark of a database opened whole).
  hash.update(readFileSync(join(import.meta.dir, "../../src/adapters/db/database.ts")));
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
  const path = join(tmpdir(), `storefront-pglite-template-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(path)) return path;
  // Test files running at once that all need it wait for the first to make it, instead of each making one.
  const lock = waitForLock(`${path}.lock`, "the PGlite template");
  try {
    if (!existsSync(path)) build(path);
  } finally {
    lock.release();
  }
  return path;
}

function build(path: string): void {
  const dataDir = mkdtempSync(join(tmpdir(), "storefront-pglite-build-"));
  try {
    const run = Bun.spawnSync([process.execPath, "src/cli/main.ts", "db:migrate"], {
      cwd: join(import.meta.dir, "../.."),
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent" },
    });
    if (run.exitCode !== 0) throw new Error(`db:migrate for the PGlite template failed: ${run.stderr.toString()}`);
    renameSync(join(dataDir, "pglite"), path);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Puts a migrated embedded database into DATA_DIR `dataDir` (made 0700, as the shop makes it). */
export function withMigratedDatabase(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  cpSync(template(), join(dataDir, "pglite"), { recursive: true });
  return dataDir;
}
