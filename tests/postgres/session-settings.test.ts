import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// database.ts: the shop's sessions start no parallel workers (the machine's server allows two),
// compile no statement (JIT) and wait 2 s at most for a lock (the server's default is forever), and
// an operator's PGOPTIONS still has the last word on those; what the code relies on (ISO dates, read
// committed) nothing changes.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

async function sessionSetting(name: "max_parallel_workers_per_gather" | "jit" | "lock_timeout", options?: string): Promise<string> {
  const opened = openDatabase({ kind: "postgres", url: database.url, poolMax: 1, options });
  try {
    const { rows } = await sql<Record<string, string>>`show ${sql.raw(name)}`.execute(opened.db);
    return rows[0]![name]!;
  } finally {
    await opened.close();
  }
}

test("the shop's sessions on PostgreSQL start no parallel workers, unless the operator's PGOPTIONS sets them (PostgreSQL)", async () => {
  expect(await sessionSetting("max_parallel_workers_per_gather")).toBe("0");
  expect(await sessionSetting("max_parallel_workers_per_gather", "-c max_parallel_workers_per_gather=3")).toBe("3");
});

test("the shop's sessions on PostgreSQL compile no statement (JIT is on by default in the server), unless the operator's PGOPTIONS asks (PostgreSQL)", async () => {
  expect(await sessionSetting("jit")).toBe("off");
  expect(await sessionSetting("jit", "-c jit=on")).toBe("on");
});

test("the shop's sessions on PostgreSQL wait 2 s at most for a lock another session holds (the server waits forever), unless PGOPTIONS says otherwise (PostgreSQL)", async () => {
  expect(await sessionSetting("lock_timeout")).toBe("2s");
  expect(await sessionSetting("lock_timeout", "-c lock_timeout=30s")).toBe("30s");
});

test("dates in ISO, transactions read committed and nulls in arrays, whatever the database, the role or PGOPTIONS set: the shop's code relies on them (found by an attack)", async () => {
  // A database set to another date style made pg read every timestamp as null (each signed-in request
  // a 401, the catalog a 500), and one set to serializable failed checkouts at once.
  const odd = await createTestDatabase();
  try {
    const name = sql.id(new URL(odd.url).pathname.slice(1));
    await sql`alter database ${name} set datestyle = 'SQL, DMY'`.execute(odd.db);
    await sql`alter database ${name} set intervalstyle = 'sql_standard'`.execute(odd.db);
    await sql`alter database ${name} set default_transaction_isolation = 'serializable'`.execute(odd.db);
    await sql`alter database ${name} set array_nulls = off`.execute(odd.db);
    // An `options` parameter in DATABASE_URL, which pg lets replace the pool's own, too (found by an attack).
    const withUrlOptions = `${odd.url}?options=${encodeURIComponent("-c application_name=shop")}`;
    for (const [url, options] of [
      [odd.url, undefined],
      [odd.url, "-c DateStyle=German -c default_transaction_isolation=repeatable\\ read -c array_nulls=off"],
      [withUrlOptions, undefined],
    ] as const) {
      const opened = openDatabase({ kind: "postgres", url, poolMax: 1, options });
      try {
        const { rows } = await sql<{ at: Date; isolation: string; style: string; interval: string; name: string; texts: unknown; numbers: unknown }>`
          select timestamptz '2026-11-27 12:34:56.789+00' as at, current_setting('transaction_isolation') as isolation,
            current_setting('DateStyle') as style, interval '1 day 2 hours' as interval, current_setting('application_name') as name,
            ${["a", null]}::text[] as texts, ${[1, null]}::int[] as numbers`.execute(opened.db);
        expect(rows[0]!.at).toEqual(new Date("2026-11-27T12:34:56.789Z"));
        expect(rows[0]!.isolation).toBe("read committed");
        expect(rows[0]!.style).toStartWith("ISO,");
        expect(rows[0]!.interval).toMatchObject({ days: 1, hours: 2 });
        expect([rows[0]!.texts, rows[0]!.numbers]).toEqual([
          ["a", null],
          [1, null],
        ]);
        // The URL's own settings are sent, along with the shop's.
        if (url === withUrlOptions) expect(rows[0]!.name).toBe("shop");
      } finally {
        await opened.close();
      }
    }
  } finally {
    await odd.drop();
  }
});
