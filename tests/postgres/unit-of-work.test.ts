import { afterAll, beforeAll, expect, test } from "bun:test";
import { createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { aProduct } from "../support/builders.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

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
  let runs = 0;
  // Each takes one product, waits until the other has taken its own, then reaches for the other's: a deadlock.
  const crosswise = (mine: typeof a, theirs: typeof a, held: PromiseWithResolvers<void>, other: PromiseWithResolvers<void>) =>
    uow.transaction(async (tx) => {
      runs++;
      await tx.products.update(mine.id, { inventory: 9, updatedAt: new Date() });
      held.resolve();
      await other.promise;
      await tx.products.update(theirs.id, { inventory: 8, updatedAt: new Date() });
    });
  await Promise.all([crosswise(a, b, bothHoldOne.first, bothHoldOne.second), crosswise(b, a, bothHoldOne.second, bothHoldOne.first)]);
  expect(runs).toBe(3);
  const inventories = await uow.read(async (db) => [(await db.products.findById(a.id))!.inventory, (await db.products.findById(b.id))!.inventory]);
  expect(inventories.sort()).toEqual([8, 9]);
});
