import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statfsSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { freePort } from "./redis.ts";

/**
 * A PostgreSQL cluster of the calling test's own, for faults the machine's server must never see
 * (stopped, restarted, its connections cut): made with the machine's PostgreSQL programs
 * (/usr/lib/postgresql/<version>/bin, the newest, or PG_BIN) in a temporary folder, listening on
 * a free port on 127.0.0.1 and on a unix socket in that folder, trusting local connections, with
 * nothing written to disk durably (fsync off: a cluster lives as long as its test). initdb runs once
 * per machine and version into a template folder that each cluster copies (initdb takes seconds, a
 * copy milliseconds). As root, whom PostgreSQL refuses to run as, every program runs as the
 * `postgres` user. `destroy` stops it and removes the folder; a test process that exits without
 * calling it stops its clusters on the way out all the same.
 */
export interface OwnPostgres {
  port: number;
  /** The URL of a database in it (`postgres`, the one initdb makes, unless named). */
  url(database?: string): string;
  /** The same for the test's own connections, which terminateConnections spares. */
  testUrl(database?: string): string;
  createDatabase(name: string): Promise<string>;
  /** Starts the stopped server (pg_ctl start), and waits until it takes connections. */
  start(): Promise<void>;
  /** pg_ctl stop: "fast" rolls back open transactions and closes every connection. */
  stop(mode?: "smart" | "fast" | "immediate"): Promise<void>;
  running(): boolean;
  /** pg_terminate_backend on every connection to `database` but the test's own (testUrl's); how many were cut. */
  terminateConnections(database: string): Promise<number>;
  /** Runs one statement as the superuser on `database`, and returns its rows. */
  query<T = Record<string, unknown>>(database: string, text: string, values?: unknown[]): Promise<T[]>;
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`No PostgreSQL programs in ${root}/<version>/bin: install the server package, or set PG_BIN`);
  return join(root, newest, "bin");
}

/**
 * Where clusters live: in memory (/dev/shm) where the machine has room there, as a cluster is
 * some 900 small files a database, which a disk copies in seconds and memory in a fraction of one.
 */
const ROOT = (() => {
  try {
    const shm = statfsSync("/dev/shm");
    if (shm.bavail * shm.bsize > 1024 ** 3) return "/dev/shm";
  } catch {
    // No /dev/shm here.
  }
  return tmpdir();
})();

const asRoot = userInfo().uid === 0;
/** The command as the user PostgreSQL runs as: ourselves, or `postgres` when we are root. */
const asOwner = (command: string[]) => (asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command);
/** Makes a fresh (empty) folder the owner's. */
const giveToOwner = (path: string) => {
  if (!asRoot) return;
  const owner = Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim();
  const group = Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim();
  if (!owner) throw new Error("Running as root, the tests run PostgreSQL as the user `postgres`, which this machine does not have");
  chownSync(path, Number(owner), Number(group));
};

async function run(command: string[], what: string): Promise<void> {
  const child = Bun.spawn(asOwner(command), { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`${what} failed (${code}): ${out}${err}`);
}

/** A cluster made by initdb once per machine and PostgreSQL version, copied by every test that needs one. */
async function template(bin: string): Promise<string> {
  const version = bin.split("/").at(-2) ?? "pg";
  const path = join(ROOT, `storefront-pg-template-${version}-${asRoot ? "postgres" : userInfo().username}`);
  if (existsSync(path)) return path;
  const build = mkdtempSync(join(ROOT, "storefront-pg-build-"));
  try {
    giveToOwner(build);
    await run(
      [join(bin, "initdb"), "-D", join(build, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions", "--wal-segsize=1"],
      "initdb",
    );
    renameSync(join(build, "data"), path);
  } catch (error) {
    // Another test process made it first: theirs is as good.
    if (!existsSync(path)) throw error;
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
  return path;
}

/** The application name of the test's own connections (testUrl), which terminateConnections spares. */
const TEST_APPLICATION = "storefront-test";

const live = new Set<OwnPostgres>();
process.on("exit", () => {
  for (const cluster of live) if (cluster.running()) void cluster.stop("immediate");
});

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(ROOT, "storefront-pg-"));
  const data = join(dir, "data");
  giveToOwner(dir);
  await run(["cp", "-a", await template(bin), data], "copying the template cluster");
  const port = await freePort();
  let up = false;
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c shared_buffers=16MB",
    "-c max_connections=100",
  ].join(" ");
  const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const testUrl = (database = "postgres") => `${url(database)}?application_name=${TEST_APPLICATION}`;

  async function admin<T>(database: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: testUrl(database), connectionTimeoutMillis: 3_000 });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  const cluster: OwnPostgres = {
    port,
    url,
    testUrl,
    async createDatabase(name) {
      await admin("postgres", (c) => c.query(`create database ${name}`));
      return url(name);
    },
    async start() {
      await run([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "log"), "-o", options, "-w", "-t", "30", "start"], "pg_ctl start");
      up = true;
    },
    stop(mode = "fast") {
      if (!up) return Promise.resolve();
      up = false;
      const command = [join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "-t", "30", "stop"];
      // On the way out of the process nothing can be awaited: the stop is made there and then.
      if (mode === "immediate") {
        Bun.spawnSync(asOwner(command));
        return Promise.resolve();
      }
      return run(command, "pg_ctl stop");
    },
    running: () => up,
    async terminateConnections(database) {
      const rows = await cluster.query<{ cut: boolean }>(
        "postgres",
        "select pg_terminate_backend(pid) as cut from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and application_name <> $2",
        [database, TEST_APPLICATION],
      );
      return rows.filter((row) => row.cut).length;
    },
    query: (database, text, values = []) => admin(database, async (c) => (await c.query(text, values)).rows),
    async destroy() {
      live.delete(cluster);
      await cluster.stop("immediate");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  live.add(cluster);
  await cluster.start();
  return cluster;
}
