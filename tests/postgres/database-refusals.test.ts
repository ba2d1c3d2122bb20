import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { isRefusingWrites } from "../../src/domain/errors.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// A database in a state other than up or down, as an attack set it: taking no writes (a standby, or
// default_transaction_read_only set for maintenance), cancelling statements (a statement_timeout of
// the database's), closing idle connections (idle_session_timeout). Each was a 500 with its stack;
// the first also lasted after the database took writes again, until a restart.

let database: TestDatabase;
let admin: ReturnType<typeof openDatabase>;
const name = () => sql.id(new URL(database.url).pathname.slice(1));

beforeAll(async () => {
  database = await createTestDatabase();
  admin = openDatabase({ kind: "postgres", url: database.url, poolMax: 1 });
});
afterAll(async () => {
  await admin?.close();
  await database?.drop();
});

/** The shop on its own pool of this database, its log lines kept, with a signed-in shopper and a sauce in stock. */
async function shop() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger("info", (line) => lines.push(JSON.parse(line)));
  const opened = openDatabase({ kind: "postgres", url: database.url });
  const deps = createPgDeps(opened.db);
  const t = createTestApp({ ...deps, logger }, { logger });
  const sauce = aProduct({ inventory: 50 });
  await deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  const add = () => t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: shopper.headers });
  const browse = () => t.call("GET", `/api/products/${sauce.id}`);
  return { t, lines, add, browse, close: opened.close };
}

/** A trigger on cart_items that fails every insert with `sqlstate`, as the database would; dropped by the function returned. */
async function insertsFailWith(sqlstate: string, message: string): Promise<() => Promise<void>> {
  await sql`
    create or replace function fail_as_told() returns trigger language plpgsql as $$
    begin raise exception '%', tg_argv[1] using errcode = tg_argv[0]; end $$`.execute(admin.db);
  await sql`drop trigger if exists fail_as_told on cart_items`.execute(admin.db);
  await sql`create trigger fail_as_told before insert on cart_items for each row execute function fail_as_told(${sql.lit(sqlstate)}, ${sql.lit(message)})`.execute(
    admin.db,
  );
  return async () => {
    await sql`drop trigger if exists fail_as_told on cart_items`.execute(admin.db);
  };
}

test("a database that takes no writes: each write a 503 with Retry-After, at warn; reads go on; writes come back with it, within seconds, without a restart", async () => {
  const { add, browse, lines, close } = await shop();
  try {
    expect((await add()).status).toBe(200);
    await sql`alter database ${name()} set default_transaction_read_only = on`.execute(admin.db);
    // The shop's sessions begin again, as after a failover to a standby: they take the setting.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(admin.db);
    await Promise.all(Array.from({ length: 6 }, browse));

    const refused = await add();
    expect([refused.status, refused.body, refused.headers.get("retry-after")]).toEqual([
      503,
      { error: "The shop cannot store anything just now; please try again shortly" },
      "2",
    ]);
    // (A read the termination cut is a 503 of its own: database.unavailable.)
    expect(lines.filter((line) => line.event === "request.refused" && line.path === "/api/cart")).toEqual([
      expect.objectContaining({ level: "warn", path: "/api/cart", code: "database.read_only", reason: expect.stringContaining("read-only transaction") }),
    ]);
    expect(lines.filter((line) => line.level === "error" && line.event !== "database.connection_lost")).toEqual([]);
    // Reads keep the pool's sessions busy, as requests do.
    expect((await Promise.all(Array.from({ length: 6 }, browse))).map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);

    await sql`alter database ${name()} reset default_transaction_read_only`.execute(admin.db);
    // The sessions begun while it took no writes are retired at the next write refused, 2 s at most after the last.
    await eventually(async () => expect((await add()).status).toBe(200), 5_000);
  } finally {
    await sql`alter database ${name()} reset default_transaction_read_only`.execute(admin.db);
    await close();
  }
});

test("a database that stays read-only costs the pool its sessions once every 2 s at most, not a session a request (found by a review)", async () => {
  const opened = openDatabase({ kind: "postgres", url: database.url });
  const deps = createPgDeps(opened.db);
  try {
    await sql`alter database ${name()} set default_transaction_read_only = on`.execute(admin.db);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(admin.db);
    const sessions = new Set<number>();
    let refused = 0;
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      // A write refused every tenth request, as the outbox's poll and the shoppers' writes are.
      if (i % 10 === 0) await deps.uow.transaction((tx) => tx.users.create(aUser())).catch((error: unknown) => void (isRefusingWrites(error) && refused++));
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db);
      sessions.add(rows[0]!.pid);
    }
    expect(refused).toBe(10);
    // One session, and one more for each 2 s the loop took (on a loaded machine, more than one); a session a request before.
    expect(sessions.size).toBeLessThanOrEqual(2 + Math.floor((performance.now() - started) / 2_000));
  } finally {
    await sql`alter database ${name()} reset default_transaction_read_only`.execute(admin.db);
    await opened.close();
  }
});

test.each([
  ["57014", "canceling statement due to statement timeout", "database.busy", "What this needs is busy just now; please try again shortly"],
  [
    "57P05",
    "terminating connection due to idle-session timeout",
    "database.unavailable",
    "The shop cannot reach its database just now; please try again shortly",
  ],
  [
    "25P03",
    "terminating connection due to idle-in-transaction timeout",
    "database.unavailable",
    "The shop cannot reach its database just now; please try again shortly",
  ],
])("a statement the database ends with %s (%s) is a 503 with Retry-After (%s), not a 500", async (sqlstate, message, code, error) => {
  const { add, lines, close } = await shop();
  const restored = await insertsFailWith(sqlstate, message);
  try {
    const refused = await add();
    expect([refused.status, refused.body, refused.headers.get("retry-after")]).toEqual([503, { error }, "2"]);
    expect(lines.find((line) => line.event === "request.refused")).toMatchObject({ code, reason: message });
  } finally {
    await restored();
    await close();
  }
});
