import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { admin, createTestDatabase, sweepDeadRuns } from "../support/postgres.ts";

// The suite's own databases (tests/support/postgres.ts): a run killed mid-way drops none of its
// databases, so each test process first drops those of this machine's processes that no longer run.

const named = (name: string) =>
  admin(async (c) => (await c.query<{ datname: string }>("select datname from pg_database where datname = $1", [name])).rows.map((row) => row.datname));

test("a killed run's databases are swept; a running process's, another machine's or container's, and the older code's mark, are kept", async () => {
  const mine = await createTestDatabase({ migrate: false });
  const name = new URL(mine.url).pathname.slice(1);
  const prefix = name.slice(0, name.indexOf(`_${process.pid}_`) + 1);
  // A process that has ended, as a killed run's test process has.
  const ended = Bun.spawn(["true"]);
  await ended.exited;
  const orphan = `${prefix}${ended.pid}_killedrun`;
  // One the code before 2026-11-28 named by the host name alone (6 digits of its hash): kept, for that
  // code still runs in other checkouts, and its pid may be another container's, whose run is alive
  // (it was swept, and a live run of the older code next door lost its database: found by a review).
  const older = `storefront_test_${createHash("sha256").update(hostname()).digest("hex").slice(0, 6)}_${ended.pid}_killedrun`;
  // The same pid on another machine, or in another container of this one (another pid namespace): not ours to judge.
  const elsewhere = `storefront_test_000000000000_${ended.pid}_killedrun`;
  try {
    // (Another test process starting at this moment may sweep them first: the outcome is the same.)
    for (const database of [orphan, older, elsewhere]) await admin((c) => c.query(`create database ${database}`));
    await sweepDeadRuns();
    expect(await named(orphan)).toEqual([]);
    expect(await named(older)).toEqual([older]);
    expect(await named(elsewhere)).toEqual([elsewhere]);
    expect(await named(name)).toEqual([name]);
  } finally {
    for (const database of [orphan, older, elsewhere]) await admin((c) => c.query(`drop database if exists ${database}`));
    await mine.drop();
  }
});
