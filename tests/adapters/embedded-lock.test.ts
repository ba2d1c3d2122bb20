import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { embeddedLockFile, openDatabase } from "../../src/adapters/db/database.ts";
import { holderCommand, lockEmbeddedDatabase } from "../../src/adapters/db/embedded-lock.ts";
import { withMigratedDatabase } from "../support/embedded-template.ts";

// Decisions §10: an embedded database belongs to one process. The lock is a flock, which the kernel
// keeps per open file: a second open of the same file in this process is refused like another
// process would be, so the rules are tested here without starting servers.
const dir = mkdtempSync(join(tmpdir(), "storefront-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lockFile = (name: string) => join(dir, `${name}.lock`);

test("a held lock refuses the next taker, naming the DATA_DIR and the holder; released, it can be taken again", () => {
  const file = lockFile("held");
  const first = lockEmbeddedDatabase(file, "DATA_DIR /srv/shop");
  expect(() => lockEmbeddedDatabase(file, "DATA_DIR /srv/shop")).toThrow(
    new RegExp(`^DATA_DIR /srv/shop is in use by process ${process.pid} \\(.+, since \\d{4}-\\d\\d-\\d\\dT`),
  );
  first.release();
  first.release();
  lockEmbeddedDatabase(file, "DATA_DIR /srv/shop").release();
});

test("the lock file names its holder by program and command, never by its options: a password given to the CLI stays out of it (found by an attack)", () => {
  const cli = ["/usr/bin/bun", "/srv/shop/src/cli/main.ts", "user:create", "--email", "a@example.com", "--password", "Sup3rSecret-PW!"];
  expect(holderCommand(cli)).toBe("/srv/shop/src/cli/main.ts user:create");
  expect(holderCommand(["/usr/bin/bun", "src/main.ts"])).toBe("src/main.ts");
  const file = lockFile("named");
  const lock = lockEmbeddedDatabase(file, "DATA_DIR x");
  expect(JSON.parse(readFileSync(file, "utf8")).command).toBe(holderCommand(process.argv));
  lock.release();
});

test("a lock file left behind holds nothing, even one naming a process that lives on: only a live holder's flock counts", () => {
  for (const pid of [Bun.spawnSync(["true"]).pid, process.pid]) {
    const file = lockFile(`left-${pid}`);
    writeFileSync(file, JSON.stringify({ pid, command: "gone", since: "2026-01-01T00:00:00Z" }));
    const lock = lockEmbeddedDatabase(file, "DATA_DIR x");
    expect(JSON.parse(readFileSync(file, "utf8")).pid).toBe(process.pid);
    lock.release();
  }
});

test("a holder killed without a chance to clean up (SIGKILL) leaves the lock free for the next", async () => {
  const file = lockFile("killed");
  const holder = Bun.spawn(
    [
      process.execPath,
      "-e",
      `require(${JSON.stringify(join(import.meta.dir, "../../src/adapters/db/embedded-lock.ts"))}).lockEmbeddedDatabase(${JSON.stringify(file)}, "x"); console.log("locked"); setInterval(() => {}, 1000);`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  try {
    const reader = holder.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("locked");
    expect(() => lockEmbeddedDatabase(file, "DATA_DIR y")).toThrow(`DATA_DIR y is in use by process ${holder.pid}`);
  } finally {
    holder.kill("SIGKILL");
    await holder.exited;
  }
  lockEmbeddedDatabase(file, "DATA_DIR y").release();
}, 10_000);

test("every spelling of one database directory finds the same lock: a trailing slash, . and .., a symbolic link (found by an attack: pglite:///dir/ shared a database)", () => {
  const data = join(dir, "data", "pglite");
  mkdirSync(data, { recursive: true });
  symlinkSync(data, join(dir, "alias"));
  const spellings = [
    data,
    `${data}/`,
    `${data}//`,
    join(dir, "data", ".", "pglite"),
    `${dir}/data/../data/pglite/`,
    join(dir, "alias"),
    `${join(dir, "alias")}/`,
  ];
  expect(new Set(spellings.map(embeddedLockFile))).toEqual(new Set([`${data}.lock`]));
  // Not made yet: named through its parent.
  expect(embeddedLockFile(`${join(dir, "data", "fresh")}/`)).toBe(`${join(dir, "data", "fresh")}.lock`);
  const held = lockEmbeddedDatabase(embeddedLockFile(data), "DATA_DIR one");
  try {
    for (const spelling of spellings) expect(() => lockEmbeddedDatabase(embeddedLockFile(spelling), spelling)).toThrow("is in use by");
  } finally {
    held.release();
  }
});

test("the database's directory is locked too: a process that reaches it by another path (a bind mount, a volume mounted elsewhere), so through another lock file, is refused (found by an attack)", () => {
  const database = join(dir, "reached-twice");
  mkdirSync(database);
  const holder = lockEmbeddedDatabase(lockFile("this-path"), "DATA_DIR /srv/shop", database);
  expect(() => lockEmbeddedDatabase(lockFile("that-path"), "DATABASE_URL pglite:///mnt/shop", database)).toThrow(
    /^DATABASE_URL pglite:\/\/\/mnt\/shop is in use by another process, which opened it by another path/,
  );
  // Refused, it holds nothing: its own lock file is free again.
  lockEmbeddedDatabase(lockFile("that-path"), "DATABASE_URL pglite:///mnt/shop").release();
  holder.release();
  lockEmbeddedDatabase(lockFile("that-path"), "DATABASE_URL pglite:///mnt/shop", database).release();
});

describe("a database directory without PG_VERSION (PGlite would make a new, empty database over it)", () => {
  const open = (directory: string) => openDatabase({ kind: "pglite", directory, label: `DATABASE_URL pglite://${directory}`, privateDir: null });
  const aDatabaseDir = (name: string, files: string[]) => {
    const database = join(dir, name);
    mkdirSync(join(database, "global"), { recursive: true });
    for (const file of files) writeFileSync(join(database, file), "");
    return database;
  };

  test("one the shop had opened whole (its mark is there) is refused, naming the file, and holds no lock after (found by an attack)", async () => {
    const database = aDatabaseDir("lost-its-version", ["storefront-opened", "global/pg_control"]);
    expect(() => open(database)).toThrow(`holds a database without its PG_VERSION file (${join(database, "PG_VERSION")})`);
    writeFileSync(join(database, "PG_VERSION"), "17\n");
    // Put back, it is refused no more, its lock free to take (PGlite opens it at the first statement).
    await open(database).close();
  });

  test("a first start cut short before the database was whole (pg_control written, PG_VERSION not yet, no mark) is not refused: PGlite makes it again, as before (found by an attack on the first check)", async () => {
    const database = aDatabaseDir("cut-short", ["global/pg_control"]);
    await open(database).close();
  });

  test("a mark that cannot be written (a full disk, say) leaves the database open and working, not opened again at every statement (found by a review)", async () => {
    const dataDir = join(dir, "unmarkable");
    withMigratedDatabase(dataDir);
    const database = join(dataDir, "pglite");
    rmSync(join(database, "storefront-opened"), { force: true });
    // A link to nowhere: writing the mark through it fails, as on a full disk.
    symlinkSync(join(dir, "no-such-dir", "mark"), join(database, "storefront-opened"));
    const opened = open(database);
    try {
      for (let i = 0; i < 3; i++) expect((await sql<{ one: number }>`select 1 as one`.execute(opened.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await opened.close();
    }
  });
});
