import { describe, expect, test } from "bun:test";
import { aProduct, aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

export function unitOfWorkContract(target: () => ContractTarget) {
  describe("UnitOfWork", () => {
    const uow = () => target().uow;
    const stored = (id: string) => uow().read((db) => db.products.findById(id));

    test("a transaction's writes all land, and it returns what its work returns", async () => {
      const user = aUser();
      const product = aProduct();
      const result = await uow().transaction(async (tx) => {
        await tx.users.create(user);
        await tx.products.create(product);
        return "done";
      });
      expect(result).toBe("done");
      expect(await stored(product.id)).toMatchObject({ id: product.id });
      expect(await uow().read((db) => db.users.findById(user.id))).toMatchObject({ id: user.id });
    });

    test("work that throws leaves none of its writes behind, and the error reaches the caller as thrown", async () => {
      const kept = aProduct({ inventory: 5 });
      await uow().transaction((tx) => tx.products.create(kept));
      const added = aProduct();
      const failure = new Error("payment intent refused");
      await expect(
        uow().transaction(async (tx) => {
          await tx.products.create(added);
          await tx.products.update(kept.id, { inventory: 0, updatedAt: new Date() });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await stored(added.id)).toBeNull();
      expect((await stored(kept.id))?.inventory).toBe(5);
    });

    test("a repository that refuses a write part-way rolls back the writes before it", async () => {
      const existing = aProduct();
      await uow().transaction((tx) => tx.products.create(existing));
      const first = aProduct();
      const clash = aProduct({ sku: existing.sku });
      await expect(
        uow().transaction(async (tx) => {
          await tx.products.create(first);
          await tx.products.create(clash);
        }),
      ).rejects.toMatchObject({ code: "product.conflict" });
      expect(await stored(first.id)).toBeNull();
    });

    test("a read never sees the writes of a transaction that has not committed", async () => {
      const product = aProduct();
      const written = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      const rolledBack = uow()
        .transaction(async (tx) => {
          await tx.products.create(product);
          written.resolve();
          await release.promise;
          throw new Error("rolled back");
        })
        .catch(() => "rolled back");
      await written.promise;
      const seen = stored(product.id);
      release.resolve();
      expect(await seen).toBeNull();
      expect(await rolledBack).toBe("rolled back");
    });

    test("the work cannot reach past its transaction: read, write and transaction inside it are refused, and it rolls back", async () => {
      const product = aProduct();
      for (const reach of [
        () => uow().read((db) => db.products.findById(product.id)),
        () => uow().write((db) => db.orders.attachPaymentIntent("no-such-order", "pi_x", new Date())),
        () => uow().transaction((tx) => tx.products.findById(product.id)),
      ]) {
        await expect(
          uow().transaction(async (tx) => {
            await tx.products.create(product);
            await reach();
          }),
        ).rejects.toThrow("called inside a transaction");
        expect(await stored(product.id)).toBeNull();
      }
    });
  });
}
