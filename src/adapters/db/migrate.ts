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
  const applied = new Set(await appliedMigrations(db));
  return names.filter((name) => !applied.has(name));
}

/** The migrations the database has run, by name (none before the first). */
async function appliedMigrations(db: Db): Promise<string[]> {
  return sql<{ name: string }>`select name from kysely_migration`.execute(db).then(
    ({ rows }) => rows.map((row) => row.name),
    (error: unknown) => {
      // 42P01: no such table, as on a database never migrated.
      if ((error as { code?: unknown }).code === "42P01") return [];
      throw error;
    },
  );
}

/**
 * The schema made ready for this code, as MIGRATE_ON_START says (`migrate`), for the server and for
 * every CLI command but db:migrate: migrated (the names applied), or only looked at, refusing a
 * database behind this code. A database ahead of it (a newer release migrated it: a rollback, or an
 * old instance restarting mid-rollout) is refused by name when asked to migrate, where Kysely's
 * own words were "corrupted migrations"; looked at only, it is served, as the newer release's
 * migrations keep what older code reads (found by an attack on an upgrade).
 */
export async function readySchema(db: Db, migrate: boolean): Promise<string[]> {
  if (migrate) {
    const known = new Set(Object.keys(await migrationProvider.getMigrations()));
    const ahead = (await appliedMigrations(db)).filter((name) => !known.has(name)).sort();
    if (ahead.length > 0)
      throw new Error(
        `The database is ahead of this code: it has run ${ahead.length} migration(s) this code does not know (${ahead.join(", ")}). ` +
          "Run the release that made them, or this one with MIGRATE_ON_START=false",
      );
    return migrateToLatest(db);
  }
  const pending = await pendingMigrations(db);
  if (pending.length > 0)
    throw new Error(`The database is behind this code by ${pending.length} migration(s) (${pending.join(", ")}): run \`npm run cli -- db:migrate\` first`);
  return [];
}
