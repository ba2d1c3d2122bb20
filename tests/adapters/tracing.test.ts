import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { SpanKind, SpanStatusCode, context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { DummyDriver, Kysely, type LogEvent, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from "kysely";
import type { Database } from "../../src/adapters/db/tables.ts";
import { traceProcessor } from "../../src/adapters/tracing/processor-spans.ts";
import { statementSpans } from "../../src/adapters/tracing/statement-spans.ts";
import { traceUseCases } from "../../src/adapters/tracing/use-case-spans.ts";
import type { PaymentGateway, TaxCalculator } from "../../src/application/ports/payments.ts";
import { DomainError } from "../../src/domain/errors.ts";

// The spans the shop makes, recorded in memory (the process test, tests/process/tracing.test.ts,
// sends a real shop's to a collector): what each is called, what it carries, and what makes none.

const exporter = new InMemorySpanExporter();
const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer("test");
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => context.disable());
afterEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
/** Runs `work` under a span of its own, as a request's span would be. */
const underARequest = <T>(work: () => T) => tracer.startActiveSpan("request", (span) => [work(), span.end()][0] as T);

/** Kysely compiling PostgreSQL's SQL with nothing to run it on: the statements the log hook is told of. */
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const ran = (query: { compile(db: Kysely<Database>): LogEvent["query"] }, queryDurationMillis = 3): LogEvent => ({
  level: "query",
  query: query.compile(db),
  queryDurationMillis,
});

describe("statement spans (Kysely's log hook)", () => {
  const onStatement = statementSpans(tracer);

  test("a statement is a client span named by operation and table, its text with placeholders and never the values, timed as Kysely timed it", () => {
    underARequest(() => onStatement(ran(db.selectFrom("products").selectAll().where("slug", "=", "ghost-pepper-secret"), 12.5)));
    const [statement, request] = spans();
    expect(statement!.name).toBe("SELECT products");
    expect(statement!.kind).toBe(SpanKind.CLIENT);
    expect(statement!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
    expect(statement!.attributes).toEqual({
      "db.system": "postgresql",
      "db.system.name": "postgresql",
      "db.operation.name": "SELECT",
      "db.collection.name": "products",
      "db.query.summary": "SELECT products",
      "db.query.text": 'select * from "products" where "slug" = $1',
    });
    const [seconds, nanos] = statement!.duration;
    expect(seconds * 1e3 + nanos / 1e6).toBeCloseTo(12.5, 1);
  });

  test("each kind of statement gets its operation and table, raw ones included; a transaction's BEGIN and COMMIT their word", () => {
    underARequest(() => {
      onStatement(ran(db.insertInto("orders").values({ id: "o1" } as never)));
      onStatement(ran(db.updateTable("products as p").set({ inventory: 1 })));
      onStatement(ran(db.deleteFrom("cart_items").where("id", "=", "c1")));
      onStatement(ran(sql`with created as (insert into orders (id) values (${"o1"}) returning id) insert into order_items (order_id) select id from created`));
      onStatement(ran(sql`select id from orders where id = ${"o1"} for update`));
      onStatement(ran(sql`begin`));
    });
    expect(spans().map((span) => span.name)).toEqual([
      "INSERT orders",
      "UPDATE products",
      "DELETE cart_items",
      "INSERT orders",
      "SELECT orders",
      "BEGIN",
      "request",
    ]);
  });

  test("a failed statement is marked failed with PostgreSQL's SQLSTATE", () => {
    const error = Object.assign(new Error("could not serialize access due to concurrent update"), { code: "40001" });
    underARequest(() => onStatement({ level: "error", error, query: db.selectFrom("orders").selectAll().compile(), queryDurationMillis: 1 }));
    expect(spans()[0]).toMatchObject({
      status: { code: SpanStatusCode.ERROR, message: "could not serialize access due to concurrent update" },
      attributes: { "db.response.status_code": "40001", "error.type": "40001" },
    });
  });

  test("a statement outside any span (the mail worker's poll, housekeeping) makes none", () => {
    onStatement(ran(db.selectFrom("mail_outbox").selectAll()));
    expect(spans()).toEqual([]);
  });
});

describe("use case spans", () => {
  const bound = {
    getCart: async (userId: string) => ({ userId, lines: [] }),
    identityProvider: (id: string) => (id === "github" ? { id } : null),
    placeOrder: async () => {
      throw new DomainError("inventory.insufficient", "Not enough stock");
    },
    checkHealth: async () => {
      throw new TypeError("pool is closed");
    },
    rateLimit: { max: 100, passwordMax: 10, windowSeconds: 900 },
  };
  const traced = traceUseCases(bound, tracer);

  test("each use case answers as before, in an internal span named after it; what is no function is kept as it is", async () => {
    expect(await traced.getCart("u1")).toEqual({ userId: "u1", lines: [] });
    expect(traced.identityProvider("github")).toEqual({ id: "github" });
    expect(traced.rateLimit).toBe(bound.rateLimit);
    expect(spans().map((span) => [span.name, span.kind, span.attributes["code.function.name"], span.status.code])).toEqual([
      ["getCart", SpanKind.INTERNAL, "getCart", SpanStatusCode.UNSET],
      ["identityProvider", SpanKind.INTERNAL, "identityProvider", SpanStatusCode.UNSET],
    ]);
  });

  test("a refusal marks the span failed with its code, an unexpected error with its name and the exception; both still reach the caller", async () => {
    await expect(traced.placeOrder()).rejects.toThrow("Not enough stock");
    await expect(traced.checkHealth()).rejects.toThrow("pool is closed");
    const [refused, broken] = spans();
    expect([refused!.attributes["error.type"], refused!.status.code, refused!.events.length]).toEqual(["inventory.insufficient", SpanStatusCode.ERROR, 0]);
    expect([broken!.attributes["error.type"], broken!.status.code, broken!.events[0]?.name]).toEqual(["TypeError", SpanStatusCode.ERROR, "exception"]);
  });
});

test("processor calls: each port's calls in client spans named by port and call, with the processor as peer.service, answered by the processor itself", async () => {
  class Processor implements PaymentGateway, TaxCalculator {
    readonly fee = 30;
    createIntent = async () => ({ id: "pi_1" }) as never;
    confirmIntent = async () => ({}) as never;
    cancelIntent = async () => ({}) as never;
    retrieveIntent = async () => ({}) as never;
    refund = async () => ({}) as never;
    async calculate() {
      return { tax: this.fee, calculationId: null };
    }
  }
  const { payments, tax } = traceProcessor(new Processor(), tracer, "stripe");
  expect(await tax.calculate({ lines: [], shippingAddress: {} as never, currency: "usd" })).toEqual({ tax: 30, calculationId: null });
  expect(await payments.createIntent({ amount: 100 as never, currency: "usd", metadata: {}, idempotencyKey: "k" })).toEqual({ id: "pi_1" } as never);
  expect(Object.keys(payments).sort()).toEqual(["cancelIntent", "confirmIntent", "createIntent", "refund", "retrieveIntent"]);
  expect(spans().map((span) => [span.name, span.kind, span.attributes["peer.service"]])).toEqual([
    ["TaxCalculator.calculate", SpanKind.CLIENT, "stripe"],
    ["PaymentGateway.createIntent", SpanKind.CLIENT, "stripe"],
  ]);
});

test("a use case's statements and processor calls are its children across awaits (AsyncLocalStorage)", async () => {
  const onStatement = statementSpans(tracer);
  const { tax } = traceProcessor(
    { calculate: async () => ({ tax: 0, calculationId: null }) } as unknown as PaymentGateway & TaxCalculator,
    tracer,
    "fake-processor",
  );
  const traced = traceUseCases(
    {
      placeOrder: async () => {
        await tax.calculate({ lines: [], shippingAddress: {} as never, currency: "usd" });
        await Bun.sleep(1);
        onStatement(ran(db.selectFrom("cart_items").selectAll()));
      },
    },
    tracer,
  );
  await traced.placeOrder();
  const byName = new Map(spans().map((span) => [span.name, span]));
  const placeOrder = byName.get("placeOrder")!.spanContext().spanId;
  expect(byName.get("TaxCalculator.calculate")!.parentSpanContext?.spanId).toBe(placeOrder);
  expect(byName.get("SELECT cart_items")!.parentSpanContext?.spanId).toBe(placeOrder);
});
