import { sql } from "kysely";
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

/**
 * The migrations this code has that the database has not run yet, in the order they run: one read
 * of the table where Kysely's Migrator notes them (none there before the first). Readiness asks at
 * every probe: the Migrator's own answer first looks over every column of every table, some 10 ms
 * of PostgreSQL's time a probe, so that a flood of probes slowed every other request (found by an
 * attack).
 */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db).then(
    ({ rows }) => new Set(rows.map((row) => row.name)),
    (error: unknown) => {
      // 42P01: no such table, as on a database never migrated.
      if ((error as { code?: unknown }).code === "42P01") return new Set<string>();
      throw error;
    },
  );
  return names.filter((name) => !applied.has(name));
}
