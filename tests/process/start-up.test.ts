import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliHere } from "../support/cli.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { withMigratedDatabase } from "../support/embedded-template.ts";
import { outcome, processes, waitForStart } from "../support/processes.ts";

// Decisions §10, start-up: each refusal is one line and exit code 1, with nothing half-started.
// Making an embedded database costs a process some ten seconds of CPU: a start whose subject is not
// that begins from a migrated copy (tests/support/embedded-template.ts), or on PostgreSQL, whose
// start costs nothing. The first start on an empty DATA_DIR is in server.test.ts.

const children = processes();
const dirs: string[] = [];
/** A server on an embedded database the CLI migrated before its first start, running for the whole file: it holds a port and a DATA_DIR. */
const holder = { dir: "", port: 0, pid: 0 };
/** A migrated PostgreSQL database, for the starts whose subject is not the database. */
let postgres: TestDatabase;

function aDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "storefront-start-"));
  dirs.push(dir);
  return dir;
}

const server = (env: Record<string, string>) => children.spawn([process.execPath, "src/main.ts"], { PORT: "0", DATABASE_URL: "", ...env });
const cli = (env: Record<string, string>, ...args: string[]) => children.spawn([process.execPath, "src/cli/main.ts", ...args], { DATABASE_URL: "", ...env });

beforeAll(async () => {
  holder.dir = children.migratedDataDir();
  // Nothing periodic writes into the held DATA_DIR while a test compares its files (housekeeping runs once, at the start).
  const started = server({ DATA_DIR: holder.dir, HOUSEKEEPING_INTERVAL_SECONDS: "3600" });
  holder.pid = started.pid;
  [{ port: holder.port }, postgres] = await Promise.all([waitForStart(started), createTestDatabase()]);
}, 30_000);

afterAll(async () => {
  await children.stopAll();
  await postgres?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every file under a directory with its size and modification time: what "untouched" means. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      const { size, mtimeMs } = statSync(path);
      return `${path} ${size} ${mtimeMs}`;
    })
    .sort();
}

test("an embedded database migrated by the CLI before the first start still gets the demo catalog", async () => {
  // The holder's DATA_DIR is a copy of an embedded database the CLI's db:migrate made (tests/support/embedded-template.ts).
  const products = (await (await fetch(`http://127.0.0.1:${holder.port}/api/products`)).json()) as { meta: { total: number } };
  expect(products.meta.total).toBeGreaterThanOrEqual(12);
}, 30_000);

test("PORT=0 without PUBLIC_URL: the shop's address names the port it took, so its own pages' requests pass the origin check (found by a spec audit)", async () => {
  const origin = `http://localhost:${holder.port}`;
  // A registration from the shop's own origin passes the cross-site check (to the 400 of a body
  // left incomplete); one from another origin does not. Nothing is written: the next test finds the
  // holder's files as they were (a registration's welcome mail was written while it looked).
  const register = (from: string) =>
    fetch(`http://127.0.0.1:${holder.port}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: from },
      body: JSON.stringify({ email: "port-zero@example.com" }),
    }).then((answer) => answer.status);
  expect(await register(origin)).toBe(400);
  expect(await register("http://localhost:1")).toBe(403);
  const document = (await (await fetch(`http://127.0.0.1:${holder.port}/api/openapi.json`)).json()) as { servers: Array<{ url: string }> };
  expect(document.servers.map((server) => server.url)).toEqual([origin]);
}, 30_000);

describe("start-up refusals", () => {
  test("an embedded DATA_DIR held by a live server: a second server and the CLI exit 1 naming it and the holder, touching nothing", async () => {
    const before = snapshot(holder.dir);
    const refusals = await Promise.all([outcome(server({ DATA_DIR: holder.dir })), outcome(cli({ DATA_DIR: holder.dir }, "db:migrate"))]);
    for (const { code, output } of refusals) {
      expect(code).toBe(1);
      expect(output.trim().split("\n")).toHaveLength(1);
      expect(output).toContain(`DATA_DIR ${holder.dir} is in use by process ${holder.pid}`);
    }
    expect(snapshot(holder.dir)).toEqual(before);
  }, 30_000);

  test("a port already in use: one error line naming the port, exit 1, nothing made in its DATA_DIR, and the first server keeps serving", async () => {
    const unused = join(aDir(), "data");
    const second = await outcome(server({ DATA_DIR: unused, PORT: String(holder.port) }));
    expect(existsSync(unused)).toBe(false);
    expect(second.code).toBe(1);
    const errors = second.output.split("\n").filter((line) => line.includes('"level":"error"'));
    expect(errors.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: "server.start_failed", error: `Port ${holder.port} is already in use` }),
    ]);
    expect((await fetch(`http://127.0.0.1:${holder.port}/api/health`)).status).toBe(200);
  }, 30_000);

  test("MIGRATE_ON_START=false on a database behind the code: exit 1 saying to run db:migrate; after it, the server starts", async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      const env = { DATABASE_URL: database.url, MIGRATE_ON_START: "false" };
      const refused = await outcome(server(env));
      expect(refused.code).toBe(1);
      expect(refused.output).toMatch(/The database is behind this code by \d+ migration\(s\) \(0001_initial, .*\): run `npm run cli -- db:migrate` first/);
      expect((await runCliHere(env, "db:migrate")).code).toBe(0);
      const started = server(env);
      const { log } = await waitForStart(started);
      expect(log.some((entry) => entry.event === "database.migrated")).toBe(false);
      started.kill();
      await started.exited;
    } finally {
      await database.drop();
    }
  }, 30_000);

  test("NODE_ENV=production without DATABASE_URL: exit 1 naming it, and no embedded database made", async () => {
    const dir = aDir();
    const { code, output } = await outcome(
      server({ NODE_ENV: "production", AUTH_SECRET: "a-production-secret-of-forty-characters!!", STRIPE_SECRET_KEY: "sk_test_startup", DATA_DIR: dir }),
    );
    expect(code).toBe(1);
    expect(output.trim().split("\n")).toHaveLength(1);
    expect(output).toContain("DATABASE_URL: is required when NODE_ENV=production");
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  test("DATA_DIR is made 0700 and the generated auth-secret 0600; one that exists open to others is closed, and the log says so", async () => {
    // On PostgreSQL, DATA_DIR holds the session secret alone (on the embedded default, server.test.ts).
    const fresh = join(aDir(), "fresh");
    const open = aDir();
    chmodSync(open, 0o755);
    const [, { log }] = await Promise.all([
      waitForStart(server({ DATA_DIR: fresh, DATABASE_URL: postgres.url })),
      waitForStart(server({ DATA_DIR: open, DATABASE_URL: postgres.url })),
    ]);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(statSync(join(fresh, "auth-secret")).mode & 0o777).toBe(0o600);
    expect(statSync(open).mode & 0o777).toBe(0o700);
    expect(log).toContainEqual(expect.objectContaining({ event: "data_dir.tightened", dir: open, was: "755", now: "700" }));
  }, 30_000);

  test("NODE_ENV=production on a deliberate embedded database starts empty: the demo catalog is never seeded in production", async () => {
    const db = join(withMigratedDatabase(aDir()), "pglite");
    const { port } = await waitForStart(
      server({
        NODE_ENV: "production",
        AUTH_SECRET: "a-production-secret-of-forty-characters!!",
        STRIPE_SECRET_KEY: "sk_test_startup",
        DATA_DIR: aDir(),
        DATABASE_URL: `pglite://${db}`,
      }),
    );
    expect(((await (await fetch(`http://127.0.0.1:${port}/api/products`)).json()) as { meta: { total: number } }).meta.total).toBe(0);
  }, 30_000);

  test("an embedded database that lost its PG_VERSION file is refused, naming it, not made again empty over the orders it holds (found by an attack)", async () => {
    const dir = children.migratedDataDir();
    const database = join(dir, "pglite");
    rmSync(join(database, "PG_VERSION"));
    const before = snapshot(database);
    const { code, output } = await outcome(server({ DATA_DIR: dir }));
    expect(code).toBe(1);
    const failure = JSON.parse(output.split("\n").find((line) => line.includes("server.start_failed")) ?? "{}");
    expect(failure.error).toContain(`${database}`);
    expect(failure.error).toContain("holds a database without its PG_VERSION file");
    expect(snapshot(database)).toEqual(before);
  }, 30_000);

  test.each([
    ["shorter than 32 characters", "x", 0o600, "holds a secret of 1 characters; it needs at least 32"],
    ["readable by others", "s".repeat(48), 0o644, "is readable by others (mode 644)"],
  ])(
    "an auth-secret file %s stops the start, naming the file",
    async (_, secret, mode, message) => {
      const dir = aDir();
      writeFileSync(join(dir, "auth-secret"), secret);
      chmodSync(join(dir, "auth-secret"), mode);
      const { code, output } = await outcome(server({ DATA_DIR: dir }));
      expect(code).toBe(1);
      const failure = JSON.parse(output.split("\n").find((line) => line.includes("server.start_failed")) ?? "{}");
      expect(failure.error).toContain(`${join(dir, "auth-secret")} ${message}`);
    },
    30_000,
  );
});
