import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signedInAs } from "../support/accounts.ts";
import { runCliHere } from "../support/cli.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { seedOrderHistory } from "../support/seed-orders.ts";

// The CLI's orders:export (decisions §12), run in this process as its bin runs it (tests/support/cli.ts), on a PostgreSQL database of its own.
const TIMEOUT = 30_000;
let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  // Enough that the filters below still leave some hundreds of lines.
  await seedOrderHistory(database.db, { orders: 1_500, customers: 150 });
  dir = mkdtempSync(join(tmpdir(), "storefront-export-"));
}, TIMEOUT);
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
}, TIMEOUT);

const cli = (...args: string[]) => runCliHere({ DATABASE_URL: database.url }, ...args);

test(
  "orders:export writes the CSV GET /api/admin/orders/export answers for the same filters, and is audited as the system's",
  async () => {
    const out = join(dir, "delivered.csv");
    // What a run killed mid-write leaves, readable by all: the next run writes afresh, for its owner only.
    writeFileSync(`${out}.partial`, "stale", { mode: 0o644 });
    const run = await cli(
      "orders:export",
      "--status",
      "DELIVERED,SHIPPED",
      "--payment-status",
      "PAID",
      "--from",
      "2026-06-01",
      "--q",
      "customer1",
      "--out",
      out,
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const written = readFileSync(out, "utf8");
    const rows = written.split("\r\n").slice(1, -1);
    expect(rows.length).toBeGreaterThan(100);
    expect(run.stdout.trim()).toBe(`Wrote ${rows.length} order lines to ${out}`);
    // Customers' names, e-mails and addresses: the owner's alone, whatever the umask.
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(existsSync(`${out}.partial`)).toBe(false);

    const t = createTestApp(createPgDeps(database.db));
    const staff = await signedInAs(t, "STAFF");
    const http = await t.call("GET", "/api/admin/orders/export?status=DELIVERED,SHIPPED&paymentStatus=PAID&from=2026-06-01&q=customer1", {
      headers: staff.headers,
    });
    expect(written).toBe(http.body);
    for (const row of rows)
      expect(row).toMatch(/^SF-2026\d{4}-[A-Z0-9]{4},2026-(0[6-9]|1[0-2])-\d\dT[^,]+,[^,]+,(DELIVERED|SHIPPED),PAID,u\d+,customer1\d*@example\.com,/);

    const audit = await database.db.selectFrom("audit_log").selectAll().where("action", "=", "order.export").orderBy("created_at").execute();
    expect(audit.map((entry) => [entry.user_id, entry.changes])).toEqual([
      [null, { by: "SYSTEM", filters: { statuses: ["DELIVERED", "SHIPPED"], paymentStatuses: ["PAID"], q: "customer1", from: "2026-06-01T00:00:00.000Z" } }],
      [staff.id, { by: "STAFF", filters: { statuses: ["DELIVERED", "SHIPPED"], paymentStatuses: ["PAID"], q: "customer1", from: "2026-06-01T00:00:00.000Z" } }],
    ]);
  },
  TIMEOUT,
);

test(
  "--from and --to as dates are days of the shop's zone (SHOP_TIMEZONE), as the back office's are",
  async () => {
    const run = await runCliHere(
      { DATABASE_URL: database.url, SHOP_TIMEZONE: "America/New_York" },
      "orders:export",
      ...["--q", "customer3", "--from", "2026-06-01", "--to", "2026-06-02", "--out", "-"],
    );
    expect(run.code).toBe(0);
    const [entry] = await database.db
      .selectFrom("audit_log")
      .select("changes")
      .where("action", "=", "order.export")
      .orderBy("created_at", "desc")
      .limit(1)
      .execute();
    expect(entry?.changes).toEqual({ by: "SYSTEM", filters: { q: "customer3", from: "2026-06-01T04:00:00.000Z", to: "2026-06-02T04:00:00.000Z" } });
  },
  TIMEOUT,
);

test(
  "a bad filter, or no --out, is a usage error naming the flag; nothing is written or audited",
  async () => {
    const out = join(dir, "never.csv");
    const before = await database.db.selectFrom("audit_log").select("id").where("action", "=", "order.export").execute();
    const bad = await cli("orders:export", "--status", "LOST", "--payment-status", "PAID", "--out", out);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^--status: must be one or more of PENDING, CONFIRMED, PROCESSING, SHIPPED, DELIVERED, CANCELLED, REFUNDED, separated by commas \(usage: npm run cli -- orders:export /,
      ),
    ]);
    const backwards = await cli("orders:export", "--from", "2026-06-02", "--to", "2026-06-01", "--out", out);
    expect([backwards.code, backwards.stderr.trim().split("\n")]).toEqual([2, [expect.stringContaining("--to: must be after from (usage: ")]]);
    const nowhere = await cli("orders:export", "--status", "PENDING");
    expect([nowhere.code, nowhere.stderr.trim().split("\n")]).toEqual([
      2,
      [expect.stringContaining("orders:export needs --out FILE (or --out - for stdout) (usage: ")],
    ]);
    expect(existsSync(out)).toBe(false);
    expect(await database.db.selectFrom("audit_log").select("id").where("action", "=", "order.export").execute()).toEqual(before);
  },
  TIMEOUT,
);

test(
  "--out - writes the same CSV to stdout alone (what was written said on stderr), and no file named '-'",
  async () => {
    const filters = ["--status", "DELIVERED", "--q", "customer2"];
    const file = join(dir, "delivered-customer2.csv");
    const toFile = await cli("orders:export", ...filters, "--out", file);
    expect(toFile.code).toBe(0);
    const piped = await cli("orders:export", ...filters, "--out", "-");
    expect(piped.code).toBe(0);
    const written = readFileSync(file, "utf8");
    expect(written.split("\r\n").length).toBeGreaterThan(10);
    expect(piped.stdout).toBe(written);
    const lines = written.split("\r\n").length - 2;
    expect(piped.stderr.trim()).toBe(`Wrote ${lines} order lines to stdout`);
    expect(existsSync(join(process.cwd(), "-"))).toBe(false);
  },
  TIMEOUT,
);

test(
  "orders:list, which reads batch by batch, lists every order of a shop of many batches once, newest first, where two meet in one millisecond too",
  async () => {
    // The last order of the first batch and the first of the second made in one millisecond, the
    // second a few microseconds earlier: a batch's end kept as a Date (milliseconds) skipped it (found by a review).
    const newest = await database.db
      .selectFrom("orders")
      .select(["id", sql<string>`created_at::text`.as("at")])
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(101)
      .execute();
    const [lastOfFirst, firstOfSecond] = [newest[99]!, newest[100]!];
    const moveTo = (id: string, at: string) => sql`update orders set created_at = ${at}::timestamptz where id = ${id}`.execute(database.db);
    await sql`update orders set created_at = date_trunc('milliseconds', ${lastOfFirst.at}::timestamptz) + interval '500 microseconds' where id = ${lastOfFirst.id}`.execute(
      database.db,
    );
    await sql`update orders set created_at = date_trunc('milliseconds', ${lastOfFirst.at}::timestamptz) + interval '400 microseconds' where id = ${firstOfSecond.id}`.execute(
      database.db,
    );
    try {
      const listed = await cli("orders:list");
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split("\n");
      const numbers = lines.slice(0, -1).map((line) => line.split(" ")[0]);
      const rows = await database.db.selectFrom("orders").select("order_number").orderBy("created_at", "desc").orderBy("id", "desc").execute();
      expect(rows.length).toBeGreaterThan(1_000);
      expect(numbers).toEqual(rows.map((row) => row.order_number));
      expect(lines.at(-1)).toBe(`${rows.length} orders`);
    } finally {
      await moveTo(lastOfFirst.id, lastOfFirst.at);
      await moveTo(firstOfSecond.id, firstOfSecond.at);
    }
  },
  TIMEOUT,
);
