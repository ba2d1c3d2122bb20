import { expect, test } from "bun:test";

/** Runs `bun test` on the given files with TEST_DATABASE_URL pointing where nothing answers. */
async function withoutPostgres(...files: string[]) {
  const run = Bun.spawn([process.execPath, "test", ...files], {
    env: { ...process.env, TEST_DATABASE_URL: "postgres://root@127.0.0.1:1/test" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
  return { code, output: stdout + stderr };
}

test("without PostgreSQL, a run that needs it stops with one line saying what to start, not a screen of ECONNREFUSED", async () => {
  const { code, output } = await withoutPostgres("tests/postgres/deleted-account.test.ts");
  expect(code).toBe(1);
  const said = output.split("\n").filter((line) => line.includes("PostgreSQL") || line.includes("ECONNREFUSED"));
  expect(said).toEqual([
    expect.stringContaining("The tests need PostgreSQL at 127.0.0.1:1 (TEST_DATABASE_URL), which does not answer (ECONNREFUSED): start it with"),
  ]);
}, 30_000);

test("a run of tests that do not need PostgreSQL runs without it", async () => {
  const { code, output } = await withoutPostgres("tests/domain/session.test.ts");
  expect({ code, passed: output.includes("1 pass") }).toEqual({ code: 0, passed: true });
}, 30_000);
