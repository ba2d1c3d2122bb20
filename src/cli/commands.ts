import { open, rename, rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { z } from "zod";
import { demoCatalog } from "../application/catalog/demo-catalog.ts";
import { checkDemoOrdersRequest } from "../application/catalog/seed-demo-orders.ts";
import { type UseCases, makeUseCases } from "../application/use-cases.ts";
import { NO_ORIGIN } from "../domain/audit.ts";
import { DomainError } from "../domain/errors.ts";
import { toDollars } from "../domain/money.ts";
import { ORDER_STATUSES, type OrderStatus, isOrderStatus } from "../domain/order.ts";
import { SYSTEM_ACTOR, isPermission } from "../domain/permissions.ts";
import { presentOrder } from "../adapters/presenters/order.ts";
import { presentAccountSummary } from "../adapters/presenters/account.ts";
import { presentSalesReport } from "../adapters/presenters/sales-report.ts";
import { REPORT_INTERVALS, isReportInterval } from "../domain/report.ts";
import { csvDocument } from "../adapters/presenters/csv.ts";
import { ORDER_CSV_HEADER, orderCsvRow } from "../adapters/presenters/order-csv.ts";
import { orderFilterFieldsIn, orderQueueFilter, rangeRunsForwards } from "../adapters/presenters/order-filter.ts";
import { USER_ROLES, type UserRole, isUserRole } from "../domain/user.ts";
import { readySchema } from "../adapters/db/migrate.ts";
import { settleAfterImport } from "../adapters/db/sales-repository.ts";
import { createJsonLogger } from "../adapters/log.ts";
import { type Runtime, buildRuntime, useCaseOptionsOf } from "../compose.ts";
import type { Config } from "../config.ts";
import { CliError, issuesOf } from "./cli-error.ts";
import { salesTable } from "./sales-table.ts";

/**
 * Where a command writes: `out` what it was asked for (stdout), `err` what went wrong (stderr), each
 * call a line or lines; `write` a part of a document for stdout as it is (no line added).
 */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  write(chunk: string): Promise<void>;
}

export interface Command {
  usage: string;
  summary: string;
  run(args: string[], config: Config, output: Output): Promise<void>;
}

/** A command called wrongly: exit 2, its one line followed by the command's own usage (runCli adds it). */
const misuse = (message: string) => new CliError(message, 2);

type OptionsSpec = Record<string, { type: "string" | "boolean" }>;

/**
 * A command's options (node's parseArgs, strict), each at most once: `--email a --email b` is a
 * misuse, not the last one silently (a command that touches accounts or money acts on what was
 * meant or not at all).
 */
function readOptions<T extends OptionsSpec>(name: string, args: string[], options: T) {
  const { values, positionals, tokens } = parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (seen.has(token.name)) throw misuse(`${name} takes --${token.name} once`);
    seen.add(token.name);
  }
  return { values, positionals };
}

function positionals(name: string, args: string[], count: number): string[] {
  if (args.length !== count) throw misuse(`${name} takes ${count === 0 ? "no" : count} argument${count === 1 ? "" : "s"}`);
  return args;
}

function orderStatus(value: string): OrderStatus {
  const upper = value.toUpperCase();
  if (!isOrderStatus(upper)) throw misuse(`Unknown order status "${value}"; statuses: ${ORDER_STATUSES.join(", ")}`);
  return upper;
}

const formatDollars = (cents: number) => `$${toDollars(cents).toFixed(2)}`;

function wholeNumber(option: string, value: string): number {
  if (!/^\d{1,10}$/.test(value)) throw misuse(`${option} takes a whole number, not "${value}"`);
  return Number(value);
}

function role(value: string | undefined): UserRole {
  const upper = value?.toUpperCase() ?? "";
  if (!isUserRole(upper)) throw misuse(`Unknown role "${value}"; roles: ${USER_ROLES.join(", ")}`);
  return upper;
}

/**
 * Opens the configured database, makes its schema ready as the server does (readySchema: migrated,
 * or with MIGRATE_ON_START=false only looked at, and refused when behind), runs the work and closes
 * it again. `migrate`: db:migrate's own, whatever MIGRATE_ON_START says. A read-only command no
 * longer migrates a database that old instances still serve (found by an attack on an upgrade).
 */
async function withUseCases(
  config: Config,
  output: Output,
  work: (useCases: UseCases, runtime: Runtime, applied: string[]) => Promise<void>,
  migrate = config.migrateOnStart,
) {
  const logger = createJsonLogger("warn", (line) => output.err(line));
  const runtime = buildRuntime(config, logger);
  try {
    const applied = await readySchema(runtime.db, migrate);
    await work(makeUseCases(runtime.deps, useCaseOptionsOf(config)), runtime, applied);
  } finally {
    await runtime.close();
  }
}

/**
 * A listing command's output: every item of `batches`, taken batch by batch (a shop's every order or
 * account is never held at once), one a line, as JSON with `--json` or else as text, then, as text,
 * how many there were ("3 orders").
 */
async function listEvery<T>(
  output: Output,
  batches: AsyncIterable<T[]>,
  json: boolean,
  noun: string,
  line: { json: (item: T) => unknown; text: (item: T) => string },
): Promise<void> {
  let shown = 0;
  for await (const batch of batches) {
    for (const item of batch) output.out(json ? JSON.stringify(line.json(item)) : line.text(item));
    shown += batch.length;
  }
  if (!json) output.out(`${shown} ${noun}${shown === 1 ? "" : "s"}`);
}

export const commands: Record<string, Command> = {
  "db:migrate": {
    usage: "db:migrate",
    summary: "apply every pending database migration",
    run: (args, config, output) => {
      positionals("db:migrate", args, 0);
      return withUseCases(
        config,
        output,
        async (_, runtime, applied) => {
          output.out(applied.length ? `Applied ${applied.join(", ")} to ${runtime.adapters.database}` : "Database is up to date");
        },
        true,
      );
    },
  },
  "db:seed": {
    usage: "db:seed [--orders N [--seed S]]",
    summary: "add the demo catalog (products and retail locations) where missing; with --orders, N orders of history over the last 365 days",
    run: (args, config, output) => {
      const { values, positionals: extra } = readOptions("db:seed", args, { orders: { type: "string" }, seed: { type: "string" } });
      if (extra.length) throw misuse("db:seed takes no arguments besides --orders and --seed");
      if (values.seed !== undefined && values.orders === undefined) throw misuse("--seed goes with --orders");
      const orders = values.orders === undefined ? null : wholeNumber("--orders", values.orders);
      const seed = values.seed === undefined ? undefined : wholeNumber("--seed", values.seed);
      // Judged before the catalog is added: a refused count leaves the database as it was.
      if (orders !== null) asMisuse(() => checkDemoOrdersRequest({ orders, seed }));
      // Made-up orders would be counted in a real shop's sales report and exports.
      if (orders !== null && config.env === "production")
        throw new CliError("db:seed --orders makes up orders: not on a production shop (NODE_ENV=production)", 1);
      return withUseCases(config, output, async (useCases, runtime) => {
        const result = await useCases.seedDemoCatalog(demoCatalog);
        output.out(`Added ${result.productsAdded} products and ${result.locationsAdded} locations`);
        if (orders === null) return;
        const started = performance.now();
        const seeded = await useCases.seedDemoOrders({ orders, seed });
        await settleAfterImport(runtime.db);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const found = seeded.found > 0 ? `; ${seeded.found} of them were there already, from a run of this seed stopped midway` : "";
        output.out(
          `Added ${seeded.orders} demo orders over the last 365 days in ${seconds} s (seed ${seeded.seed}: the same seed gives the same orders${found})`,
        );
      });
    },
  },
  "user:create": {
    usage: "user:create --email E --password P [--name N] [--role R]",
    summary: "create an account (role CUSTOMER unless given)",
    run: (args, config, output) => {
      const { values, positionals: extra } = readOptions("user:create", args, {
        email: { type: "string" },
        password: { type: "string" },
        name: { type: "string" },
        role: { type: "string" },
      });
      if (extra.length) throw misuse("user:create takes no arguments besides --email, --password, --name and --role");
      if (!values.email || !values.password) throw misuse("user:create needs --email and --password");
      const account = { email: values.email, password: values.password, name: values.name, role: role(values.role ?? "CUSTOMER") };
      return withUseCases(config, output, async (useCases) => {
        const user = await useCases.createUser(SYSTEM_ACTOR, account);
        output.out(`Created ${user.role} ${user.email} (${user.id})`);
      });
    },
  },
  "user:set-role": {
    usage: "user:set-role EMAIL ROLE",
    summary: "change an account's role",
    run: (args, config, output) => {
      const [email, newRole] = positionals("user:set-role", args, 2) as [string, string];
      const wanted = role(newRole);
      return withUseCases(config, output, async (useCases) => {
        const user = await useCases.setUserRole(SYSTEM_ACTOR, { email }, wanted);
        output.out(`${user.email} is now ${user.role}`);
      });
    },
  },
  "users:list": {
    usage: "users:list [--q Q] [--role R] [--json]",
    summary: "accounts with their orders in figures, newest first, as GET /api/admin/users (JSON lines with --json)",
    run: (args, config, output) => {
      const { values, positionals: extra } = readOptions("users:list", args, { q: { type: "string" }, role: { type: "string" }, json: { type: "boolean" } });
      if (extra.length) throw misuse("users:list takes no arguments besides --q, --role and --json");
      const filter = { q: values.q?.trim() || undefined, role: values.role === undefined ? undefined : role(values.role) };
      return withUseCases(config, output, async (useCases) =>
        listEvery(output, await useCases.everyUser(SYSTEM_ACTOR, filter), values.json === true, "account", {
          json: presentAccountSummary,
          // The e-mail, of any length, last: the lines come a batch at a time, so no column could be sized to the longest.
          text: (a) =>
            `${a.role.padEnd(10)} ${String(a.orderCount).padStart(5)} order(s) ${formatDollars(a.totalSpent).padStart(11)} spent  last order ${(a.lastOrderAt?.toISOString() ?? "never").padEnd(24)}  ${a.email}`,
        }),
      );
    },
  },
  "orders:list": {
    usage: "orders:list [--status S|all] [--json]",
    summary: "every user's orders, newest first (as JSON lines with --json)",
    run: (args, config, output) => {
      const { values, positionals: extra } = readOptions("orders:list", args, { status: { type: "string" }, json: { type: "boolean" } });
      if (extra.length) throw misuse("orders:list takes no arguments besides --status and --json");
      const status = values.status === undefined || values.status.toLowerCase() === "all" ? undefined : orderStatus(values.status);
      return withUseCases(config, output, async (useCases) =>
        listEvery(output, await useCases.everyOrder(SYSTEM_ACTOR, status), values.json === true, "order", {
          json: presentOrder,
          text: (o) =>
            `${o.orderNumber}  ${o.status.padEnd(10)} ${o.paymentStatus.padEnd(8)} ${formatDollars(o.total).padStart(10)}  ${o.createdAt.toISOString()}  ${o.items.length} item(s)`,
        }),
      );
    },
  },
  "order:set-status": {
    usage: "order:set-status ORDER_NUMBER STATUS [--tracking T]",
    summary: "move an order, as PUT /api/orders/:id/status does (refunds a paid order that is cancelled or refunded)",
    run: (args, config, output) => {
      const { values, positionals: given } = readOptions("order:set-status", args, { tracking: { type: "string" } });
      const [orderNumber, wanted] = positionals("order:set-status", given, 2) as [string, string];
      const status = orderStatus(wanted);
      return withUseCases(config, output, async (useCases) => {
        const { order, refund } = await useCases.changeOrderStatus(SYSTEM_ACTOR, { orderNumber }, { status, trackingNumber: values.tracking }, NO_ORIGIN);
        output.out(`${order.orderNumber} is now ${order.status} (payment ${order.paymentStatus})`);
        if (refund === "due") output.out("Its refund is due: the processor did not make it yet; the server's housekeeping asks again a minute after each try");
      });
    },
  },
  "orders:expire": {
    usage: "orders:expire",
    summary: "cancel unpaid orders older than ORDER_PAYMENT_TTL_MINUTES and release their stock",
    run: (args, config, output) => {
      positionals("orders:expire", args, 0);
      return withUseCases(config, output, async (useCases) => {
        const { expired, paidMeanwhile } = await useCases.expireUnpaidOrders();
        output.out(expired.length ? `Cancelled ${expired.length}: ${expired.join(", ")}` : "No unpaid order has run out of time");
        if (paidMeanwhile.length) output.out(`Paid meanwhile, left to settle: ${paidMeanwhile.join(", ")}`);
      });
    },
  },
  "inventory:adjust": {
    usage: "inventory:adjust SKU DELTA --reason TEXT",
    summary: "add units to a product's stock (a negative DELTA takes them), audited with the reason",
    run: (args, config, output) => {
      const { sku, delta, reason } = inventoryArgs(args);
      return withUseCases(config, output, async (useCases) => {
        const { product, before } = await useCases.adjustInventory(SYSTEM_ACTOR, { sku }, { delta, reason }, NO_ORIGIN).catch((error: unknown) => {
          throw plainRefusal(error, sku);
        });
        output.out(`${product.name} (${product.sku}): ${before} -> ${product.inventory} units`);
      });
    },
  },
  "report:sales": {
    usage: "report:sales --from D --to D [--interval day|week|month] [--json]",
    summary: "the sales report in SHOP_TIMEZONE, as GET /api/admin/reports/sales (its answer's data with --json)",
    run: (args, config, output) => {
      const { values, positionals: extra } = readOptions("report:sales", args, {
        from: { type: "string" },
        to: { type: "string" },
        interval: { type: "string" },
        json: { type: "boolean" },
      });
      if (extra.length) throw misuse("report:sales takes no arguments besides --from, --to, --interval and --json");
      if (!values.from || !values.to) throw misuse("report:sales needs --from and --to (dates, YYYY-MM-DD, both included)");
      const interval = values.interval ?? "day";
      if (!isReportInterval(interval)) throw misuse(`Unknown interval "${interval}"; intervals: ${REPORT_INTERVALS.join(", ")}`);
      const range = { from: values.from, to: values.to, interval };
      return withUseCases(config, output, async (useCases) => {
        const report = await useCases.getSalesReport(SYSTEM_ACTOR, range);
        output.out(values.json ? JSON.stringify(presentSalesReport(report)) : salesTable(report).join("\n"));
      });
    },
  },
  "orders:export": {
    usage: "orders:export [--status S,…] [--payment-status P,…] [--q Q] [--from D] [--to D] [--customer-id ID] --out FILE|-",
    summary: "write the matching orders as CSV, one row per line, as GET /api/admin/orders/export does (to stdout with --out -)",
    run: (args, config, output) => {
      const { values, positionals: extra } = readOptions("orders:export", args, {
        status: { type: "string" },
        "payment-status": { type: "string" },
        q: { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        "customer-id": { type: "string" },
        out: { type: "string" },
      });
      if (extra.length) throw misuse("orders:export takes no arguments besides its options");
      if (!values.out) throw misuse("orders:export needs --out FILE (or --out - for stdout)");
      const read = z
        .object(orderFilterFieldsIn(config.shopTimeZone))
        .refine(rangeRunsForwards.check, rangeRunsForwards.issue)
        .safeParse({ ...values, paymentStatus: values["payment-status"], customerId: values["customer-id"] });
      if (!read.success) throw misuse(read.error.issues.map((issue) => `--${flagOf(String(issue.path[0]))}: ${issue.message}`).join("; "));
      const out = values.out;
      return withUseCases(config, output, async (useCases) => {
        const exported = await useCases.exportOrders(SYSTEM_ACTOR, orderQueueFilter(read.data), NO_ORIGIN);
        let lines = 0;
        async function* counted() {
          for await (const batch of exported.lines) {
            lines += batch.length;
            yield batch;
          }
        }
        const document = csvDocument(ORDER_CSV_HEADER, counted(), orderCsvRow);
        if (out === "-") {
          // The CSV alone on stdout, for a pipe; what was written is said on stderr.
          for await (const chunk of document) await output.write(chunk);
          output.err(`Wrote ${lines} order line${lines === 1 ? "" : "s"} to stdout`);
        } else {
          await writeWhole(out, document);
          output.out(`Wrote ${lines} order line${lines === 1 ? "" : "s"} to ${out}`);
        }
      });
    },
  },
  "permissions:list": {
    usage: "permissions:list [ROLE]",
    summary: "show the permissions of every role, or of one",
    run: (args, config, output) => {
      if (args.length > 1) throw misuse("permissions:list takes at most one role");
      const only = args[0] === undefined ? undefined : role(args[0]);
      return withUseCases(config, output, async (useCases) => {
        const { fromDefaults, roles } = await useCases.listPermissions(SYSTEM_ACTOR, only);
        if (fromDefaults) output.out("(role_permissions is empty: built-in defaults apply)");
        for (const r of roles) output.out(`${r.role}: ${r.permissions.join(", ") || "(none)"}`);
      });
    },
  },
  "permissions:grant": {
    usage: "permissions:grant ROLE PERMISSION",
    summary: "give a role a permission",
    run: (args, config, output) => changePermission(args, config, output, "grant"),
  },
  "permissions:revoke": {
    usage: "permissions:revoke ROLE PERMISSION",
    summary: "take a permission from a role",
    run: (args, config, output) => changePermission(args, config, output, "revoke"),
  },
};

/**
 * SKU DELTA --reason TEXT, read by hand: node's parseArgs takes a DELTA such as -3 for an option.
 * Bounds and the reason's length are the use case's to judge.
 */
function inventoryArgs(args: string[]): { sku: string; delta: number; reason: string } {
  const given: string[] = [];
  let reason: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--reason" || arg.startsWith("--reason=")) {
      if (reason !== undefined) throw misuse("inventory:adjust takes --reason once");
      reason = arg === "--reason" ? args[++i] : arg.slice("--reason=".length);
    } else if (/^--?[a-z]/i.test(arg)) throw misuse(`inventory:adjust does not take ${arg}`);
    else given.push(arg);
  }
  const [sku, delta] = positionals("inventory:adjust", given, 2) as [string, string];
  if (reason === undefined) throw misuse("inventory:adjust needs --reason TEXT: why the stock changes, for the audit log");
  if (!/^[+-]?\d+$/.test(delta)) throw misuse(`DELTA must be a whole number of units such as 5 or -3, not "${delta}"`);
  return { sku, delta: Number(delta), reason };
}

/** The refusals a person at the terminal can act on, said in their terms (the SKU they typed, what is on the shelf). */
function plainRefusal(error: unknown, sku: string): unknown {
  if (!(error instanceof DomainError)) return error;
  if (error.code === "product.not_found") return new CliError(`No product has the SKU "${sku}"`, 1);
  if (error.code === "inventory.insufficient") {
    const { productName, available, requested } = error.details as { productName: string; available: number; requested: number };
    return new CliError(`Insufficient inventory: ${productName} has ${available}, so ${requested} cannot be taken`, 1);
  }
  return error;
}

function changePermission(args: string[], config: Config, output: Output, change: "grant" | "revoke") {
  const [roleName, permission] = positionals(`permissions:${change}`, args, 2) as [string, string];
  const target = role(roleName);
  if (!isPermission(permission)) throw misuse(`Unknown permission "${permission}"`);
  return withUseCases(config, output, async (useCases) => {
    const changed =
      change === "grant" ? await useCases.grantPermission(SYSTEM_ACTOR, target, permission) : await useCases.revokePermission(SYSTEM_ACTOR, target, permission);
    const verb = change === "grant" ? "granted to" : "revoked from";
    output.out(changed ? `${permission} ${verb} ${target}` : `${target} already ${change === "grant" ? "had" : "lacked"} ${permission}`);
  });
}

const flagOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** Runs a use case's check of the arguments; its refusal of invalid input is a misuse, naming each flag. */
function asMisuse(check: () => void): void {
  try {
    check();
  } catch (error) {
    const issues = issuesOf(error);
    if (issues.length === 0) throw error;
    throw misuse(issues.map((issue) => `--${flagOf(issue.path)}: ${issue.message}`).join("; "));
  }
}

/**
 * Writes the chunks as they come, under a temporary name until the last is written: a failed export
 * leaves no file that looks whole. Readable by its owner only, whatever the umask: an export holds
 * customers' names, e-mails and addresses.
 */
async function writeWhole(path: string, chunks: AsyncIterable<string>): Promise<void> {
  const partial = `${path}.partial`;
  await rm(partial, { force: true });
  const file = await open(partial, "wx", 0o600);
  try {
    for await (const chunk of chunks) await file.write(chunk);
    await file.close();
    await rename(partial, path);
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
}

export function usage(): string {
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(56)} ${c.summary}`);
  return ["Usage: npm run cli -- <command> [arguments]", "", "Commands:", ...lines].join("\n");
}
