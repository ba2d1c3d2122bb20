import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { aProduct } from "../support/builders.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { freePort } from "../support/redis.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("a transaction PostgreSQL gives up to break a deadlock is run again, and both land (PostgreSQL)", async () => {
  const uow = createPgUnitOfWork(database.db);
  const [a, b] = [aProduct({ inventory: 10 }), aProduct({ inventory: 10 })];
  await uow.transaction(async (tx) => {
    await tx.products.create(a);
    await tx.products.create(b);
  });
  const bothHoldOne = { first: Promise.withResolvers<void>(), second: Promise.withResolvers<void>() };
  const landed = { first: Promise.withResolvers<void>(), second: Promise.withResolvers<void>() };
  let runs = 0;
  // Each takes one product, waits until the other has taken its own, then reaches for the other's: a
  // deadlock. The one given up waits, when run again, for the other to land: run again at once, it
  // could take its first product back before the other got it, and deadlock with it a second time.
  const crosswise = (mine: typeof a, theirs: typeof a, [held, other]: PromiseWithResolvers<void>[], [done, otherDone]: PromiseWithResolvers<void>[]) => {
    let mineRuns = 0;
    return (
      uow
        .transaction(async (tx) => {
          runs++;
          if (++mineRuns > 1) await otherDone!.promise;
          await tx.products.update(mine.id, { inventory: 9, updatedAt: new Date() });
          held!.resolve();
          await other!.promise;
          await tx.products.update(theirs.id, { inventory: 8, updatedAt: new Date() });
        })
        // Landed or failed, the other must not wait for it forever (a failure then fails the test, not its time-out).
        .finally(() => done!.resolve())
    );
  };
  await Promise.all([
    crosswise(a, b, [bothHoldOne.first, bothHoldOne.second], [landed.first, landed.second]),
    crosswise(b, a, [bothHoldOne.second, bothHoldOne.first], [landed.second, landed.first]),
  ]);
  expect(runs).toBe(3);
  const inventories = await uow.read(async (db) => [(await db.products.findById(a.id))!.inventory, (await db.products.findById(b.id))!.inventory]);
  expect(inventories.sort()).toEqual([8, 9]);
});

test("a transaction given up to a deadlock at every one of its three runs is database.busy (a 503 with Retry-After), never a 500 (found by an attack)", async () => {
  const uow = createPgUnitOfWork(database.db);
  let runs = 0;
  const deadlocked = uow.transaction(async () => {
    runs++;
    // The error PostgreSQL raises on the transaction it gives up to break a deadlock (SQLSTATE 40P01),
    // raised at every run: the test above makes a real one, which a rerun gets past.
    await sql`do $$ begin raise exception 'deadlock detected' using errcode = '40P01'; end $$`.execute(database.db);
  });
  const error = await deadlocked.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect(error).toMatchObject({ code: "database.busy", details: { retryAfterSeconds: expect.any(Number) } });
  expect(runs).toBe(3);
});

test("a transaction whose connection is cut before it commits (pg_terminate_backend) is run again on another connection, and lands once", async () => {
  // The unit of work on a pool of its own, named, so its connection can be found and cut.
  const application = `uow-${crypto.randomUUID().slice(0, 8)}`;
  const url = new URL(database.url);
  url.searchParams.set("application_name", application);
  const { db } = openDatabase({ kind: "postgres", url: url.toString() });
  const uow = createPgUnitOfWork(db);
  try {
    const product = aProduct({ inventory: 10 });
    let runs = 0;
    await uow.transaction(async (tx) => {
      runs++;
      await tx.products.create(product);
      if (runs === 1) {
        const cut = await sql<{ cut: boolean }>`
          select pg_terminate_backend(pid) as cut from pg_stat_activity where application_name = ${application}`.execute(database.db);
        expect(cut.rows).toEqual([{ cut: true }]);
      }
      await tx.products.update(product.id, { inventory: 9, updatedAt: new Date() });
    });
    expect(runs).toBe(2);
    expect((await uow.read((repos) => repos.products.findById(product.id)))?.inventory).toBe(9);
  } finally {
    await db.destroy();
  }
});

test("a database that is not there (a restore dropped it), or a login the server refuses, is database.unavailable too, never a 500 (found by an attack)", async () => {
  for (const [url, sqlState] of [
    [`postgres://root@127.0.0.1:5432/storefront_no_such_database_${process.pid}`, "3D000"],
    [`postgres://storefront_no_such_role_${process.pid}@127.0.0.1:5432/test`, "28000"],
  ] as const) {
    const { db } = openDatabase({ kind: "postgres", url });
    const uow = createPgUnitOfWork(db);
    try {
      for (const attempt of [() => uow.read((repos) => repos.products.findById("p1")), () => uow.transaction((tx) => tx.products.findById("p1"))]) {
        const error = await attempt().catch((e: unknown) => e);
        expect([(error as DomainError).code, ((error as Error).cause as { code?: string }).code]).toEqual(["database.unavailable", sqlState]);
      }
    } finally {
      await db.destroy();
    }
  }
});

test("a database closed to connections (ALLOW_CONNECTIONS false, as a restore does) is database.unavailable, never a 500 (found by an attack)", async () => {
  const closed = await createTestDatabase();
  const name = new URL(closed.url).pathname.slice(1);
  const { db } = openDatabase({ kind: "postgres", url: closed.url });
  const uow = createPgUnitOfWork(db);
  await sql`alter database ${sql.id(name)} allow_connections false`.execute(database.db);
  try {
    const error = await uow.read((repos) => repos.products.findById("p1")).catch((e: unknown) => e);
    expect([(error as DomainError).code, ((error as Error).cause as { code?: string }).code]).toEqual(["database.unavailable", "55000"]);
  } finally {
    await sql`alter database ${sql.id(name)} allow_connections true`.execute(database.db);
    await db.destroy();
    await closed.drop();
  }
});

test("a database that does not answer is DomainError database.unavailable (a 503 with Retry-After), for reads and transactions alike", async () => {
  const { db } = openDatabase({ kind: "postgres", url: `postgres://root@127.0.0.1:${await freePort()}/nowhere` });
  const uow = createPgUnitOfWork(db);
  try {
    for (const attempt of [() => uow.read((repos) => repos.products.findById("p1")), () => uow.transaction((tx) => tx.products.findById("p1"))]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect([(error as DomainError).code, (error as DomainError).details]).toEqual(["database.unavailable", { retryAfterSeconds: 2 }]);
      expect(String((error as Error).cause)).toContain("ECONNREFUSED");
    }
  } finally {
    await db.destroy();
  }
});
