import { Migrator } from "kysely/migration";
import type { Db } from "./database.ts";
import { migrationProvider } from "./migrations/index.ts";

/** Applies every pending migration; returns the names applied in this run. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === "Error");
  if (error || failed) {
    const cause = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(failed ? `Migration ${failed.migrationName} failed: ${cause}` : `Could not migrate the database: ${cause}`);
  }
  return results.filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** The migrations this code has that the database has not run yet. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const migrations = await new Migrator({ db, provider: migrationProvider }).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
