import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { AccountSummary } from "../../src/domain/account.ts";
import { type Order, newOrder } from "../../src/domain/order.ts";
import type { User } from "../../src/domain/user.ts";
import { aProduct, aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const address = { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" };
let sequence = 0;
const at = (day: number) => new Date(Date.UTC(2026, 9, day, 12));

/** What the back office should list for the user, given its figures. */
const summaryOf = (u: User, figures: Pick<AccountSummary, "orderCount" | "totalSpent" | "lastOrderAt">): AccountSummary => {
  const { passwordHash, ...rest } = u;
  return { ...rest, hasPassword: passwordHash !== null, ...figures };
};
const none = { orderCount: 0, totalSpent: 0, lastOrderAt: null };

export function userAccountsContract(target: () => ContractTarget) {
  describe("UserRepository: the back office's accounts", () => {
    const repo = () => target().repos.users;

    async function stored(overrides: Partial<User> = {}): Promise<User> {
      const user = aUser(overrides);
      await repo().create(user);
      return user;
    }

    async function anOrder(user: User, overrides: Partial<Order> & { quantity?: number } = {}): Promise<Order> {
      const product = aProduct({ price: 1250 });
      await target().repos.products.create(product);
      const { quantity = 1, ...fields } = overrides;
      const order = {
        ...newOrder({
          id: cuid2Ids.next(),
          orderNumber: `SF-20261001-${String(++sequence).padStart(4, "0")}`,
          userId: user.id,
          itemIds: [cuid2Ids.next()],
          lines: [
            { productId: product.id, quantity, product: { name: product.name, sku: product.sku, featuredImage: product.featuredImage, price: product.price } },
          ],
          shippingAddress: address,
          billingAddress: address,
          tax: 100,
          notes: null,
          at: at(1),
        }),
        ...fields,
      };
      expect(await target().repos.orders.create(order)).toBe(true);
      return order;
    }

    test("lists accounts newest first (then by id, descending) with their figures: every order counted, paid and not ended ones summed, the latest order's time", async () => {
      const older = await stored({ createdAt: at(1), updatedAt: at(1) });
      const [tieA, tieB] = [await stored({ createdAt: at(2), updatedAt: at(2) }), await stored({ createdAt: at(2), updatedAt: at(2), passwordHash: null })];
      const newest = await stored({ createdAt: at(3), updatedAt: at(5) });
      const paid = await anOrder(older, { status: "CONFIRMED", paymentStatus: "PAID", createdAt: at(4) });
      const delivered = await anOrder(older, { status: "DELIVERED", paymentStatus: "PAID", quantity: 3, createdAt: at(6) });
      await anOrder(older, { status: "REFUNDED", paymentStatus: "PAID", createdAt: at(7) });
      await anOrder(older, { status: "REFUNDED", paymentStatus: "REFUNDED", createdAt: at(8) });
      await anOrder(older, { status: "CANCELLED", paymentStatus: "PAID", createdAt: at(9) });
      const last = await anOrder(older, { status: "PENDING", paymentStatus: "FAILED", createdAt: at(10) });
      await anOrder(newest, { status: "PENDING", paymentStatus: "PENDING", createdAt: at(3) });

      const ties = [tieA, tieB].sort((a, b) => (a.id < b.id ? 1 : -1));
      const { items, total } = await repo().listAccounts({}, { page: 1, limit: 20 });
      expect(total).toBe(4);
      expect(items).toEqual([
        summaryOf(newest, { orderCount: 1, totalSpent: 0, lastOrderAt: at(3) }),
        summaryOf(ties[0]!, none),
        summaryOf(ties[1]!, none),
        summaryOf(older, { orderCount: 6, totalSpent: paid.total + delivered.total, lastOrderAt: last.createdAt }),
      ]);
      expect(JSON.stringify(items)).not.toContain(older.passwordHash!);
      expect(items.every((a) => !("passwordHash" in a))).toBe(true);
    });

    test("q finds a part of the e-mail or of the name, in any case; % and _ are taken literally", async () => {
      const ada = await stored({ email: "ada@analytical.example", name: "Ada Lovelace" });
      const grace = await stored({ email: "grace@navy.example", name: "Grace LOVE Hopper" });
      const percent = await stored({ email: "fifty%off@shop.example", name: null });
      await stored({ email: "bob@example.com", name: "Bob" });
      const emails = async (q: string) => (await repo().listAccounts({ q }, { page: 1, limit: 20 })).items.map((a) => a.email).sort();
      expect(await emails("love")).toEqual([ada.email, grace.email].sort());
      expect(await emails("ANALYTICAL")).toEqual([ada.email]);
      expect(await emails("%off")).toEqual([percent.email]);
      expect(await emails("%")).toEqual([percent.email]);
      expect(await emails("a_a")).toEqual([]);
      expect(await emails("nobody")).toEqual([]);
    });

    test("role alone, and role with q: both must match", async () => {
      const staffAda = await stored({ email: "ada@example.com", name: "Ada", role: "STAFF" });
      const staffBob = await stored({ email: "bob@example.com", name: "Bob", role: "STAFF" });
      await stored({ email: "ada.customer@example.com", name: "Ada C", role: "CUSTOMER" });
      const list = (filter: Parameters<ReturnType<typeof repo>["listAccounts"]>[0]) => repo().listAccounts(filter, { page: 1, limit: 20 });
      expect((await list({ role: "STAFF" })).items.map((a) => a.id).sort()).toEqual([staffAda.id, staffBob.id].sort());
      expect((await list({ role: "ADMIN" })).total).toBe(0);
      const both = await list({ q: "ada", role: "STAFF" });
      expect([both.total, both.items.map((a) => a.id)]).toEqual([1, [staffAda.id]]);
    });

    test("pages: limit and page pick the slice, total counts every match", async () => {
      const users: User[] = [];
      for (let day = 1; day <= 5; day++) users.push(await stored({ createdAt: at(day), updatedAt: at(day), role: day === 5 ? "STAFF" : "CUSTOMER" }));
      const newestFirst = users.reverse().map((u) => u.id);
      const page = async (n: number) => repo().listAccounts({ role: "CUSTOMER" }, { page: n, limit: 2 });
      expect(await page(1)).toMatchObject({ total: 4, items: [{ id: newestFirst[1] }, { id: newestFirst[2] }] });
      expect((await page(2)).items.map((a) => a.id)).toEqual(newestFirst.slice(3, 5));
      expect(await page(3)).toEqual({ items: [], total: 4 });
    });

    test("findAccount is the list's summary of one account; an unknown id is null", async () => {
      const user = await stored();
      const order = await anOrder(user, { status: "SHIPPED", paymentStatus: "PAID", createdAt: at(12) });
      expect(await repo().findAccount(user.id)).toEqual(summaryOf(user, { orderCount: 1, totalSpent: order.total, lastOrderAt: at(12) }));
      expect(await repo().findAccount("z12345678901234567890123")).toBeNull();
    });

    test("everyAccount yields every match in the list's order, in batches of at most the size asked, ties at a batch's edge included once", async () => {
      const users: User[] = [];
      for (const day of [1, 2, 2, 2, 3]) users.push(await stored({ createdAt: at(day), updatedAt: at(day), name: "Exported" }));
      await stored({ name: "Someone else" });
      const order = await anOrder(users[0]!, { status: "CONFIRMED", paymentStatus: "PAID", createdAt: at(4) });
      const batches: AccountSummary[][] = [];
      for await (const batch of repo().everyAccount({ q: "exported" }, 2)) batches.push(batch);
      expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
      const listed = await repo().listAccounts({ q: "exported" }, { page: 1, limit: 20 });
      expect(batches.flat()).toEqual(listed.items);
      expect(batches.flat().at(-1)).toEqual(summaryOf(users[0]!, { orderCount: 1, totalSpent: order.total, lastOrderAt: at(4) }));

      const even: AccountSummary[][] = [];
      for await (const batch of repo().everyAccount({ q: "exported" }, 5)) even.push(batch);
      expect(even.map((b) => b.length)).toEqual([5]);
      for await (const _ of repo().everyAccount({ q: "nobody at all" })) throw new Error("an empty export yields no batch");
    });

    test("lockInIdOrder, inside a transaction, gives the accounts named and every one of the role, each once, in id order", async () => {
      const admins = [await stored({ role: "ADMIN" }), await stored({ role: "ADMIN" }), await stored({ role: "ADMIN" })];
      const developer = await stored({ role: "DEVELOPER" });
      const customer = await stored({ role: "CUSTOMER" });
      const ids = (accounts: User[]) => accounts.map((a) => a.id);
      await target().uow.transaction(async (tx) => {
        expect(ids(await tx.users.lockInIdOrder([], "ADMIN"))).toEqual(ids(admins).sort());
        expect(ids(await tx.users.lockInIdOrder([developer.id, admins[0]!.id], "ADMIN"))).toEqual([...ids(admins), developer.id].sort());
        expect(await tx.users.lockInIdOrder([customer.id, "no-such-account"])).toEqual([customer]);
        expect(await tx.users.lockInIdOrder([], "FUNDRAISER")).toEqual([]);
        expect(await tx.users.lockInIdOrder([])).toEqual([]);
      });
    });
  });
}
