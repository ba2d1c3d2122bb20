import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { runCli } from "../../src/cli/run.ts";
import { type CliResult, runCliHere } from "../support/cli.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// The admin CLI's commands against one fresh PostgreSQL database, run in this process through the
// function its bin calls (runCli), with the same arguments and environment. The tests share that
// database and run in order: each builds on what the previous ones did. The bin itself, spawned, is
// tests/process/cli.test.ts.

const TIMEOUT = 30_000;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
}, TIMEOUT);

afterAll(async () => {
  await database?.drop();
}, TIMEOUT);

const cli = (...args: string[]): Promise<CliResult> => runCliHere({ DATABASE_URL: database.url }, ...args);

/** A one-line error report: exactly one non-empty line on stderr, nothing on stdout. */
function expectOneLineError(result: CliResult) {
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
}

/** A command called wrongly (decisions §1): exit 2 and one line, naming how the command is called, or where every command is. */
function expectUsage(result: CliResult, how: string) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toContain(how);
}

const count = async (table: "products" | "locations") =>
  Number(
    (
      await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

const findUser = (email: string) => database.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();

const hasPermission = async (role: string, permission: string) =>
  (await database.db.selectFrom("role_permissions").selectAll().where("role", "=", role).where("permission", "=", permission).executeTakeFirst()) !== undefined;

const auditRows = (action: string) => database.db.selectFrom("audit_log").selectAll().where("action", "=", action).orderBy("created_at").execute();

describe("db:migrate and db:seed", () => {
  test(
    "db:migrate applies every migration to an empty database, then reports it up to date",
    async () => {
      const first = await cli("db:migrate");
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("0001_initial");
      expect(first.stdout).toContain("0002_default_role_permissions");
      const tables = (await database.db.introspection.getTables()).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(["users", "products", "locations", "role_permissions", "audit_log"]));

      const second = await cli("db:migrate");
      expect(second.code).toBe(0);
      expect(second.stdout.trim()).toBe("Database is up to date");
    },
    TIMEOUT,
  );

  test(
    "db:seed with a count or seed out of bounds is a usage error naming the flag, and adds nothing, not even the catalog",
    async () => {
      for (const [args, message] of [
        [["--orders", "0"], "--orders: must be a whole number from 1 to 1,000,000"],
        [["--orders", "1000001"], "--orders: must be a whole number from 1 to 1,000,000"],
        [["--orders", "5", "--seed", "4294967296"], "--seed: must be a whole number from 0 to 4294967295"],
      ] as const) {
        const refused = await cli("db:seed", ...args);
        expect({ args, code: refused.code, stdout: refused.stdout, stderr: refused.stderr.trim() }).toEqual({
          args,
          code: 2,
          stdout: "",
          stderr: `${message} (usage: npm run cli -- db:seed [--orders N [--seed S]])`,
        });
      }
      expect([await count("products"), await count("locations")]).toEqual([0, 0]);
    },
    TIMEOUT,
  );

  test(
    "db:seed adds the demo products and locations once; a second run adds nothing",
    async () => {
      const first = await cli("db:seed");
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      const products = await count("products");
      const locations = await count("locations");
      expect(products).toBeGreaterThan(0);
      expect(locations).toBeGreaterThan(0);
      expect(first.stdout.trim()).toBe(`Added ${products} products and ${locations} locations`);

      const second = await cli("db:seed");
      expect(second.code).toBe(0);
      expect(second.stdout.trim()).toBe("Added 0 products and 0 locations");
      expect(await count("products")).toBe(products);
      expect(await count("locations")).toBe(locations);
    },
    TIMEOUT,
  );
});

describe("user:create", () => {
  test(
    "creates an account with a lowercased email, the given role and a bcrypt password hash",
    async () => {
      const result = await cli("user:create", "--email", "Ada@Example.com", "--password", "correct horse", "--name", "Ada", "--role", "staff");
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("STAFF ada@example.com");

      const user = await findUser("ada@example.com");
      expect(user).toBeDefined();
      expect(user!.name).toBe("Ada");
      expect(user!.role).toBe("STAFF");
      expect(user!.password_hash).toStartWith("$2");
      expect(user!.password_hash).not.toContain("correct horse");
      expect(await Bun.password.verify("correct horse", user!.password_hash!)).toBe(true);
      expect(await findUser("Ada@Example.com")).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "refuses an email that is already taken (whatever its case) with exit 1 and one line",
    async () => {
      const result = await cli("user:create", "--email", "ADA@example.COM", "--password", "another password");
      expect(result.code).toBe(1);
      expectOneLineError(result);
      expect(result.stderr).toMatch(/already exists|taken/i);
      const users = await database.db.selectFrom("users").select("email").execute();
      expect(users).toEqual([{ email: "ada@example.com" }]);
    },
    TIMEOUT,
  );

  test(
    "refuses an address that is not an e-mail with exit 1 and one line naming each field that is wrong, creating nothing",
    async () => {
      const result = await cli("user:create", "--email", "not-an-email", "--password", "password123");
      expect(result.code).toBe(1);
      expectOneLineError(result);
      expect(result.stderr).toContain("email: Invalid email address");
      expect(await findUser("not-an-email")).toBeUndefined();
      const both = await cli("user:create", "--email", "not-an-email", "--password", "short");
      expect(both.code).toBe(1);
      expectOneLineError(both);
      expect(both.stderr).toContain("email: Invalid email address");
      expect(both.stderr).toContain("password: ");
      // A name as the HTTP routes take it: one line, no control characters (found by a review).
      for (const [name, says] of [
        ["Ada\nLovelace", "name: must be one line"],
        ["Ada\u009b31m", "name: must not contain control characters"],
      ]) {
        const refused = await cli("user:create", "--email", "ada.l@example.com", "--password", "sauce lover 99", "--name", name!);
        expect([refused.code, refused.stderr.includes(says!)]).toEqual([1, true]);
      }
      expect(await findUser("ada.l@example.com")).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "refuses a common password with exit 1 and one line naming the rule, creating nothing",
    async () => {
      const result = await cli("user:create", "--email", "grace@example.com", "--password", "Password123");
      expect(result.code).toBe(1);
      expectOneLineError(result);
      expect(result.stderr).toContain("password: Password is too common; choose one that is harder to guess");
      expect(await findUser("grace@example.com")).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "without --password it exits 2 with one line naming how it is called, and creates nothing",
    async () => {
      const result = await cli("user:create", "--email", "grace@example.com");
      expectUsage(result, "(usage: npm run cli -- user:create --email E --password P [--name N] [--role R])");
      expect(result.stderr).toContain("user:create needs --email and --password");
      expect(await findUser("grace@example.com")).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "an option given twice exits 2 naming it, and creates neither account (the last one is not taken silently)",
    async () => {
      const twice = await cli("user:create", "--email", "grace@example.com", "--password", "correct horse", "--email", "hopper@example.com");
      expectUsage(twice, "(usage: npm run cli -- user:create --email E --password P");
      expect(twice.stderr).toStartWith("user:create takes --email once (usage: ");
      // A value that starts with a dash: Node's parser says so in three lines; the CLI in one (found by an attack).
      const dashed = await cli("user:create", "--email", "grace@example.com", "--password", "-correct horse");
      expectUsage(dashed, "(usage: npm run cli -- user:create --email E --password P");
      expect(dashed.stderr).toContain("Option '--password' argument is ambiguous.");
      const roleTwice = await cli("user:create", "--email", "grace@example.com", "--password", "correct horse", "--role", "CUSTOMER", "--role=ADMIN");
      expect(roleTwice.stderr).toStartWith("user:create takes --role once (usage: ");
      expect([await findUser("grace@example.com"), await findUser("hopper@example.com")]).toEqual([undefined, undefined]);
    },
    TIMEOUT,
  );
});

describe("user:set-role", () => {
  test(
    "changes the role and records the change in the audit log",
    async () => {
      const result = await cli("user:set-role", "ada@example.com", "ADMIN");
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe("ada@example.com is now ADMIN");

      const user = await findUser("ada@example.com");
      expect(user!.role).toBe("ADMIN");
      const audits = await auditRows("user.role_change");
      expect(audits).toHaveLength(1);
      expect(audits[0]!.entity_type).toBe("user");
      expect(audits[0]!.entity_id).toBe(user!.id);
      expect(audits[0]!.changes).toEqual({ from: "STAFF", to: "ADMIN" });
    },
    TIMEOUT,
  );

  test(
    "an unknown email exits 1 with one line naming it",
    async () => {
      const result = await cli("user:set-role", "nobody@example.com", "ADMIN");
      expect(result.code).toBe(1);
      expectOneLineError(result);
      expect(result.stderr).toContain("nobody@example.com");
      expect(await auditRows("user.role_change")).toHaveLength(1);
    },
    TIMEOUT,
  );

  test(
    "an unknown role exits 2 with usage and leaves the account alone",
    async () => {
      const result = await cli("user:set-role", "ada@example.com", "EMPEROR");
      expectUsage(result, "(usage: npm run cli -- user:set-role EMAIL ROLE)");
      expect(result.stderr).toContain('Unknown role "EMPEROR"');
      expect((await findUser("ada@example.com"))!.role).toBe("ADMIN");
    },
    TIMEOUT,
  );
});

describe("the last ADMIN, and users:list", () => {
  test(
    "user:set-role cannot demote the last ADMIN: exit 1 with one line, the account left ADMIN and nothing recorded",
    async () => {
      const result = await cli("user:set-role", "ada@example.com", "STAFF");
      expect(result.code).toBe(1);
      expectOneLineError(result);
      expect(result.stderr).toContain("The last ADMIN cannot be demoted");
      expect((await findUser("ada@example.com"))!.role).toBe("ADMIN");
      expect(await auditRows("user.role_change")).toHaveLength(1);
    },
    TIMEOUT,
  );

  test(
    "users:list shows every account with its figures, filtered by --q and --role, as JSON lines with --json, never a password hash",
    async () => {
      expect((await cli("user:create", "--email", "grace@navy.example", "--password", "another horse", "--name", "Grace Hopper")).code).toBe(0);
      const text = await cli("users:list");
      expect([text.code, text.stderr]).toEqual([0, ""]);
      expect(text.stdout).toMatch(/^CUSTOMER +0 order\(s\) +\$0\.00 spent {2}last order never {21}grace@navy\.example$/m);
      expect(text.stdout).toMatch(/^ADMIN .* ada@example\.com$/m);
      // Every column lines up, whatever the e-mail's length (found by a newcomer).
      const lines = text.stdout.trim().split("\n").slice(0, -1);
      expect(new Set(lines.map((line) => line.lastIndexOf("  "))).size).toBe(1);
      expect(text.stdout.trim().split("\n").at(-1)).toBe("2 accounts");
      const json = await cli("users:list", "--q", "NAVY", "--json");
      const listed = json.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(listed).toEqual([expect.objectContaining({ email: "grace@navy.example", role: "CUSTOMER", orderCount: 0, totalSpent: 0, hasPassword: true })]);
      expect(json.stdout).not.toMatch(/password_?hash|\$2[aby]\$/i);
      expect(
        (await cli("users:list", "--role", "admin", "--json")).stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).email),
      ).toEqual(["ada@example.com"]);
      expect((await cli("users:list", "--q", "navy", "--role", "ADMIN")).stdout.trim()).toBe("0 accounts");
      expectUsage(await cli("users:list", "--role", "EMPEROR"), "(usage: npm run cli -- users:list");
    },
    TIMEOUT,
  );

  test(
    "users:list, on a shop of several pages, lists each account once, newest first, though accounts sign up while it reads (found by a review)",
    async () => {
      const shop = await createTestDatabase();
      try {
        await sql`insert into users (id, email, created_at, updated_at)
          select 'many-' || n, 'many-' || n || '@example.com', now() - n * interval '1 minute', now() from generate_series(1, 250) n`.execute(shop.db);
        // Each line printed, a customer signs up, committed before the command reads on: read page by
        // page, each new account pushed the rest one place down, and the next page began with one
        // already shown.
        let signedUp = 0;
        const signUp = () => {
          signedUp++;
          const insert = `insert into users (id, email) values ('new-${signedUp}', 'new-${signedUp}@example.com')`;
          const psql = Bun.spawnSync(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", shop.url, "-c", insert]);
          if (psql.exitCode !== 0) throw new Error(psql.stderr.toString());
        };
        let stdout = "";
        const code = await runCli(
          ["users:list"],
          { ...process.env, LOG_LEVEL: "silent", DATABASE_URL: shop.url },
          {
            out: (text) => {
              stdout += `${text}\n`;
              if (signedUp < 5) signUp();
            },
            err: (text) => void (stdout += `${text}\n`),
            write: async (chunk) => void (stdout += chunk),
          },
        );
        expect(code).toBe(0);
        const lines = stdout.trim().split("\n");
        const listed = lines.slice(0, -1).map((line) => line.split(" ").at(-1)!);
        expect(listed.filter((email, i) => listed.indexOf(email) !== i)).toEqual([]);
        // Every account there when it began, in order; the ones made since may or may not be among them.
        const before = Array.from({ length: 250 }, (_, i) => `many-${i + 1}@example.com`);
        expect(listed.filter((email) => email.startsWith("many-"))).toEqual(before);
        expect(lines.at(-1)).toBe(`${listed.length} accounts`);
      } finally {
        await shop.drop();
      }
    },
    TIMEOUT,
  );
});

describe("permissions", () => {
  test(
    "permissions:list CUSTOMER shows that customers have no permissions by default",
    async () => {
      const result = await cli("permissions:list", "CUSTOMER");
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe("CUSTOMER: (none)");
    },
    TIMEOUT,
  );

  test(
    "permissions:grant then permissions:revoke add and remove the role_permissions row, each audited",
    async () => {
      const grant = await cli("permissions:grant", "CUSTOMER", "orders:export");
      expect(grant.stderr).toBe("");
      expect(grant.code).toBe(0);
      expect(grant.stdout.trim()).toBe("orders:export granted to CUSTOMER");
      expect(await hasPermission("CUSTOMER", "orders:export")).toBe(true);
      const grants = await auditRows("permission.grant");
      expect(grants.map((a) => [a.entity_id, a.changes])).toEqual([["CUSTOMER", { permission: "orders:export" }]]);

      const revoke = await cli("permissions:revoke", "CUSTOMER", "orders:export");
      expect(revoke.stderr).toBe("");
      expect(revoke.code).toBe(0);
      expect(revoke.stdout.trim()).toBe("orders:export revoked from CUSTOMER");
      expect(await hasPermission("CUSTOMER", "orders:export")).toBe(false);
      const revokes = await auditRows("permission.revoke");
      expect(revokes.map((a) => [a.entity_id, a.changes])).toEqual([["CUSTOMER", { permission: "orders:export" }]]);
    },
    TIMEOUT,
  );

  test(
    "granting an unknown permission exits 2 with usage and writes nothing",
    async () => {
      const result = await cli("permissions:grant", "CUSTOMER", "not:a-permission");
      expectUsage(result, "(usage: npm run cli -- permissions:grant ROLE PERMISSION)");
      expect(result.stderr).toContain('Unknown permission "not:a-permission"');
      expect(await hasPermission("CUSTOMER", "not:a-permission")).toBe(false);
    },
    TIMEOUT,
  );
});

describe("orders commands", () => {
  const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

  /** Orders placed through the use cases, as the server would place them, on the CLI's database. */
  async function placeOrders(count: number) {
    const deps = createPgDeps(database.db);
    const user = aUser();
    const sauce = aProduct({ inventory: 20 });
    await deps.repos.users.create(user);
    await deps.repos.products.create(sauce);
    const placed: Array<{ orderId: string; orderNumber: string }> = [];
    for (let i = 0; i < count; i++) {
      const line = await addToCart(deps, user.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
      placed.push(await placeOrder(deps, DEFAULT_ORDER_SETTINGS, user.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN));
    }
    const stock = async () => (await deps.repos.products.findById(sauce.id))!.inventory;
    /** Paid as the server pays, in another process than the CLI's. */
    const pay = (orderId: string) => payOrder(deps, user.id, { orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
    return { numbers: placed.map((o) => o.orderNumber), orderIds: placed.map((o) => o.orderId), stock, pay };
  }

  test(
    "orders:list shows every order, by status with --status, as JSON lines with --json",
    async () => {
      const { numbers } = await placeOrders(2);
      const text = await cli("orders:list", "--status", "pending");
      expect(text.code).toBe(0);
      for (const number of numbers) expect(text.stdout).toMatch(new RegExp(`${number}  PENDING +PENDING +\\$\\d+\\.\\d{2}`));
      const json = await cli("orders:list", "--json");
      const listed = json.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(listed.map((o) => o.orderNumber)).toEqual(expect.arrayContaining(numbers));
      expect(listed[0]).toMatchObject({ status: "PENDING", items: [expect.objectContaining({ quantity: 2 })] });
      expect((await cli("orders:list", "--status", "all")).stdout).toContain(numbers[0]!);
      expectUsage(await cli("orders:list", "--status", "LOST"), "(usage: npm run cli -- orders:list");
    },
    TIMEOUT,
  );

  test(
    "order:set-status moves an order by its number through the same rules as the API",
    async () => {
      const {
        numbers: [number],
        stock,
      } = await placeOrders(1);
      const before = await stock();
      expect((await cli("order:set-status", number!, "confirmed")).stdout.trim()).toBe(`${number} is now CONFIRMED (payment PENDING)`);
      const untracked = await cli("order:set-status", number!, "SHIPPED");
      expect(untracked.code).toBe(1);
      expectOneLineError(untracked);
      expect(untracked.stderr).toContain("An order cannot move from CONFIRMED to SHIPPED; allowed: PROCESSING, CANCELLED, REFUNDED");
      expect((await cli("order:set-status", number!, "CANCELLED")).code).toBe(0);
      expect(await stock()).toBe(before + 2);
      const unknown = await cli("order:set-status", "SF-20200101-ZZZZ", "CONFIRMED");
      expect([unknown.code, unknown.stderr.trim()]).toEqual([1, "Error: Order not found"]);
      const audit = await database.db
        .selectFrom("audit_log")
        .select(["user_id", "changes"])
        .where("action", "=", "order.status_update")
        .orderBy("created_at", "desc")
        .executeTakeFirstOrThrow();
      expect(audit).toMatchObject({ user_id: null, changes: { from: "CONFIRMED", to: "CANCELLED", by: "SYSTEM" } });
    },
    TIMEOUT,
  );

  test(
    "order:set-status refunds an order paid through another process (the server) on the built-in fake processor",
    async () => {
      const {
        numbers: [number],
        orderIds: [orderId],
        stock,
        pay,
      } = await placeOrders(1);
      expect(await pay(orderId!)).toMatchObject({ success: true });
      const before = await stock();
      const refunded = await cli("order:set-status", number!, "REFUNDED");
      expect([refunded.code, refunded.stderr, refunded.stdout.trim()]).toEqual([0, "", `${number} is now REFUNDED (payment REFUNDED)`]);
      expect(await stock()).toBe(before + 2);
    },
    TIMEOUT,
  );

  test(
    "orders:expire cancels unpaid orders past their payment time and releases their stock",
    async () => {
      const {
        numbers: [old, young],
        stock,
      } = await placeOrders(2);
      await sql`update orders set created_at = now() - interval '2 hours' where order_number = ${old!}`.execute(database.db);
      const before = await stock();
      const result = await cli("orders:expire");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(old!);
      expect(result.stdout).not.toContain(young!);
      expect(await stock()).toBe(before + 2);
      expect((await cli("orders:expire")).stdout.trim()).toBe("No unpaid order has run out of time");
    },
    TIMEOUT,
  );
});

test(
  "an unknown command exits 2 with one line naming it, and where every command is",
  async () => {
    const result = await cli("db:explode");
    expectUsage(result, "(every command: npm run cli -- --help)");
    expect(result.stderr).toContain("Unknown command: db:explode");
    // A name every object has is no command either.
    for (const name of ["toString", "__proto__"]) {
      const inherited = await cli(name);
      expectUsage(inherited, "(every command: npm run cli -- --help)");
      expect(inherited.stderr).toContain(`Unknown command: ${name}`);
    }
  },
  TIMEOUT,
);

test(
  "no command at all exits 2 with one line saying so, and where every command is (it printed the whole usage: found by an audit)",
  async () => {
    const result = await cli();
    expectUsage(result, "No command given (every command: npm run cli -- --help)");
  },
  TIMEOUT,
);

test(
  "--help prints the usage on stdout and exits 0",
  async () => {
    const result = await cli("--help");
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toContain("Usage:");
    expect(result.stdout).toContain("orders:list [--status S|all] [--json]");
  },
  TIMEOUT,
);
