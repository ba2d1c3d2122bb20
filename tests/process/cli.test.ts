import { afterAll, beforeAll, expect, test } from "bun:test";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { processes } from "../support/processes.ts";

// The admin CLI's bin (src/cli/main.ts) as a child process: that it runs the command named by its
// arguments on the database of its environment, and says so with the exit code and the stream the
// commands' tests expect of runCli (tests/cli/, in-process). Its refusal of an embedded database
// held by another process is in start-up.test.ts.

const TIMEOUT = 30_000;
/** How long one command may run: one that hangs is killed and fails its test, well within the test's own time. */
const COMMAND_MS = 20_000;
const children = processes();
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
}, TIMEOUT);

afterAll(async () => {
  await children.stopAll();
  await database?.drop();
}, TIMEOUT);

async function cli(...args: string[]) {
  const child = children.spawn([process.execPath, "src/cli/main.ts", ...args], { DATABASE_URL: database.url, LOG_LEVEL: "silent" });
  let hung = false;
  const limit = setTimeout(() => {
    hung = true;
    child.kill();
  }, COMMAND_MS);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (hung) throw new Error(`cli ${args.join(" ")} did not finish within ${COMMAND_MS} ms: ${stdout}${stderr}`);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(limit);
  }
}

test(
  "db:migrate on an empty database: exit 0, every migration named on stdout; a refusal then: exit 1, one line on stderr, nothing on stdout",
  async () => {
    const migrated = await cli("db:migrate");
    expect([migrated.code, migrated.stderr]).toEqual([0, ""]);
    expect(migrated.stdout).toStartWith("Applied 0001_initial, 0002_default_role_permissions, ");
    expect(migrated.stdout).toEndWith(`to PostgreSQL at 127.0.0.1:5432${new URL(database.url).pathname}\n`);
    const tables = (await database.db.introspection.getTables()).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(["users", "products", "orders", "audit_log"]));

    const refused = await cli("user:set-role", "nobody@example.com", "ADMIN");
    expect([refused.code, refused.stdout]).toEqual([1, ""]);
    expect(refused.stderr.trim().split("\n")).toEqual([expect.stringContaining("nobody@example.com")]);
  },
  TIMEOUT,
);

test(
  "--help prints the usage on stdout and exits 0; an unknown command exits 2 with one line on stderr",
  async () => {
    const [help, unknown] = await Promise.all([cli("--help"), cli("db:explode")]);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toStartWith("Usage: npm run cli -- <command> [arguments]\n");
    expect(help.stdout).toContain("orders:list [--status S|all] [--json]");
    expect([unknown.code, unknown.stdout]).toEqual([2, ""]);
    expect(unknown.stderr).toBe("Unknown command: db:explode (every command: npm run cli -- --help)\n");
  },
  TIMEOUT,
);
