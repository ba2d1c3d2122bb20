import { expect, test } from "bun:test";

test("without PostgreSQL, the test run stops at once with one line saying what to start", async () => {
  const run = Bun.spawn([process.execPath, "test", "tests/domain/session.test.ts"], {
    env: { ...process.env, TEST_DATABASE_URL: "postgres://root@127.0.0.1:1/test" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
  expect(code).toBe(1);
  const said = (stdout + stderr).split("\n").filter((line) => line.includes("PostgreSQL"));
  expect(said).toEqual([expect.stringContaining("The tests need PostgreSQL at 127.0.0.1:1 (TEST_DATABASE_URL), which does not answer (ECONNREFUSED): start it with")]);
  expect(stdout + stderr).not.toContain("(pass)");
});
