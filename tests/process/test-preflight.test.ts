import { afterAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";

const started: Subprocess[] = [];
afterAll(async () => {
  for (const child of started) child.kill();
  await Promise.all(started.map((child) => child.exited));
});

/** Runs `bun test` on the given files with TEST_DATABASE_URL pointing where nothing answers. */
async function withoutPostgres(...files: string[]) {
  const run = Bun.spawn([process.execPath, "test", ...files], {
    env: { ...process.env, TEST_DATABASE_URL: "postgres://root@127.0.0.1:1/test" },
    stdout: "pipe",
    stderr: "pipe",
  });
  started.push(run);
  const [code, stdout, stderr] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
  return { code, output: stdout + stderr };
}

/** A count from bun test's summary (" 3 pass", " 0 fail", "Ran 3 tests across 1 file."), read whole: 11 is not 1. */
function summary(output: string) {
  const count = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? Number.NaN);
  return { ran: count(/^Ran (\d+) tests? across/m), pass: count(/^\s*(\d+) pass$/m), fail: count(/^\s*(\d+) fail$/m) };
}

test("without PostgreSQL, a run that needs it stops with one line saying what to start, not a screen of ECONNREFUSED", async () => {
  const { code, output } = await withoutPostgres("tests/postgres/deleted-account.test.ts");
  expect(code).toBe(1);
  const said = output.split("\n").filter((line) => line.includes("PostgreSQL") || line.includes("ECONNREFUSED"));
  expect(said).toEqual([
    expect.stringContaining("The tests need PostgreSQL at 127.0.0.1:1 (TEST_DATABASE_URL), which does not answer (ECONNREFUSED): start it with"),
  ]);
}, 30_000);

test("a run of tests that do not need PostgreSQL runs without it: every test it holds passes", async () => {
  const { code, output } = await withoutPostgres("tests/domain/session.test.ts");
  const { ran, pass, fail } = summary(output);
  expect(ran).toBeGreaterThan(0);
  expect({ code, pass, fail }).toEqual({ code: 0, pass: ran, fail: 0 });
}, 30_000);
