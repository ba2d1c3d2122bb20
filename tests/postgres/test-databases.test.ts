import { expect, test } from "bun:test";
import { Client } from "pg";
import { ADMIN_DATABASE_URL, createTestDatabase, sweepDeadRuns } from "../support/postgres.ts";

// The suite's own databases (tests/support/postgres.ts): a run killed mid-way drops none of its
// databases, so each test process first drops those of this machine's processes that no longer run.

async function databases(prefix: string): Promise<string[]> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database where starts_with(datname, $1) order by datname", [prefix]);
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

test("a killed run's databases are swept; a running process's are kept", async () => {
  const mine = await createTestDatabase({ migrate: false });
  const name = new URL(mine.url).pathname.slice(1);
  const prefix = name.slice(0, name.indexOf(`_${process.pid}_`) + 1);
  // A process that has ended, as a killed run's test process has.
  const ended = Bun.spawn(["true"]);
  await ended.exited;
  const orphan = `${prefix}${ended.pid}_killedrun`;
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`create database ${orphan}`);
    expect(await databases(orphan)).toEqual([orphan]);
    await sweepDeadRuns();
    expect(await databases(orphan)).toEqual([]);
    expect(await databases(name)).toEqual([name]);
  } finally {
    await client.query(`drop database if exists ${orphan}`);
    await client.end();
    await mine.drop();
  }
});
