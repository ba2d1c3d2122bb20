import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "bun:test";
import type { Subprocess } from "bun";
import { type TestDatabase, createTestDatabase } from "./postgres.ts";
import { withMigratedDatabase } from "./embedded-template.ts";

export type Server = Subprocess<"ignore", "pipe", "pipe">;

/**
 * Every process a test file started; `stopAll` ends them (SIGTERM) and waits, so none outlives the
 * file. Each gets a DATA_DIR of its own in the temporary directory unless the test names one, so
 * no test writes into the checkout.
 */
export function processes() {
  const started: Server[] = [];
  const dataDirs: string[] = [];
  return {
    spawn(command: string[], env: Record<string, string | undefined>): Server {
      const dataDir = env.DATA_DIR ?? dataDirs[dataDirs.push(mkdtempSync(join(tmpdir(), "storefront-data-"))) - 1];
      const child = Bun.spawn(command, {
        // bcrypt at its cheapest unless a test says otherwise (production takes no less than 12): its
        // cost is the subject of the hasher's own tests and of the sign-in flood proof, not of a test
        // that merely signs someone in.
        env: {
          ...process.env,
          NODE_ENV: "development",
          LOG_LEVEL: "info",
          ...(env.NODE_ENV === "production" ? {} : { BCRYPT_COST: "4" }),
          ...env,
          DATA_DIR: dataDir,
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      started.push(child);
      return child;
    },
    /** A DATA_DIR of its own holding a migrated embedded database (a copy of one made once), for a start that is not about making it. */
    migratedDataDir(): string {
      const dataDir = mkdtempSync(join(tmpdir(), "storefront-data-"));
      dataDirs.push(dataDir);
      return withMigratedDatabase(dataDir);
    },
    async stopAll() {
      for (const child of started) child.kill();
      await Promise.all(started.map((child) => child.exited));
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads the server's JSON log until it says where it listens; `log` is every line up to then. */
export async function waitForStart(
  server: Server,
): Promise<{ port: number; url: string; docs: string; adapters: Record<string, string>; log: Record<string, unknown>[] }> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of server.stdout) {
    buffered += decoder.decode(chunk);
    // The last piece may be a line still on its way.
    const log = buffered
      .split("\n")
      .slice(0, -1)
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const started = log.find((entry) => entry.event === "server.started");
    if (started) return { ...started, log };
  }
  throw new Error(`server exited before it started: ${buffered}${await new Response(server.stderr).text()}`);
}

/** Waits for a process that is expected to stop by itself, and returns its code and all it printed. */
export async function outcome(child: Server): Promise<{ code: number; output: string }> {
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, output: stdout + stderr };
}

/**
 * A shop server of the calling test file's own, on a PostgreSQL database of its own: started
 * before the file's tests, stopped (and the database dropped) after them. `env` adds to its settings.
 */
export function shopOnPostgres(env: Record<string, string> = {}) {
  const children = processes();
  const shop = { port: 0, server: undefined as unknown as Server, database: undefined as unknown as TestDatabase };
  beforeAll(async () => {
    shop.database = await createTestDatabase();
    shop.server = children.spawn([process.execPath, "src/main.ts"], { PORT: "0", DATABASE_URL: shop.database.url, ...env });
    shop.port = (await waitForStart(shop.server)).port;
  }, 30_000);
  afterAll(async () => {
    await children.stopAll();
    await shop.database?.drop();
  });
  return shop;
}

/**
 * Waits for the server to start, as waitForStart does, and then goes on reading what it prints
 * (a pipe left full would stall a server that logs every request): its JSON log lines gather in
 * `log`, for a test to look through while the server runs (a 500's cause, say).
 */
export async function startedAndFollowed(server: Server): Promise<{ port: number; url: string; log: Record<string, unknown>[]; stderr: () => string }> {
  let stderr = "";
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of server.stderr) stderr += decoder.decode(chunk, { stream: true });
    } catch {
      // The process is gone.
    }
  })();
  const reader = server.stdout.getReader();
  const decoder = new TextDecoder();
  const log: Record<string, unknown>[] = [];
  let buffered = "";
  const take = () => {
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("{")) log.push(JSON.parse(line));
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited before it started: ${buffered}${log.map((entry) => JSON.stringify(entry)).join("\n")}`);
    buffered += decoder.decode(value, { stream: true });
    take();
    const started = log.find((entry) => entry.event === "server.started");
    if (started) {
      void (async () => {
        try {
          for (;;) {
            const next = await reader.read();
            if (next.done) return;
            buffered += decoder.decode(next.value, { stream: true });
            take();
          }
        } catch {
          // The process is gone (killed): there is nothing more to read.
        }
      })();
      return { port: started.port as number, url: started.url as string, log, stderr: () => stderr };
    }
  }
}
