import { beforeAll, describe, expect, test } from "bun:test";
import { SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { signedInAs } from "../support/accounts.ts";
import { aUser } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createTestApp } from "../support/http.ts";

// An export's 200 goes with its first rows, and the rest follows as the client reads. Its request
// is over when its body is: the log line, the duration histogram and the server span used to close
// with the headers, so a 1.5 s download was logged, timed and traced as 6 ms, and one its client
// gave up on looked the same as one it had whole (found by an attack).

const EXPORT = "/api/admin/users/export";
const READING_MS = 200;

function shop() {
  const lines: Array<Record<string, unknown>> = [];
  const observed: Array<{ route: string; status: number; seconds: number }> = [];
  const exporter = new InMemorySpanExporter();
  const t = createTestApp(undefined, {
    logger: createJsonLogger("info", (line) => lines.push(JSON.parse(line))),
    observeRequest: (_method, route, status, seconds) => observed.push({ route, status, seconds }),
    tracer: new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer("test"),
  });
  const requestLine = (path = EXPORT) => lines.find((line) => line.event === "request" && line.path === path);
  const timed = () => observed.find((o) => o.route === EXPORT);
  const span = () => exporter.getFinishedSpans().find((s) => s.name === `GET ${EXPORT}`);
  /** A request made after the export's headers, logged: the export's own line, closed with its headers, would be out by now. */
  const laterRequestLogged = async () => {
    await t.call("GET", "/api/nowhere");
    await eventually(() => expect(requestLine("/api/nowhere")).toBeDefined());
  };
  return { t, lines, requestLine, timed, span, laterRequestLogged };
}

/** Enough accounts for an export of several chunks (250 rows each). */
async function withAccounts(t: ReturnType<typeof shop>["t"]) {
  for (let i = 0; i < 600; i++) await t.deps.repos.users.create(aUser({ email: `reader-${i}@example.com` }));
  return signedInAs(t, "ADMIN");
}

describe("a streamed export is logged, timed and traced when its body ends", () => {
  let sent: Awaited<ReturnType<typeof readSlowly>>;
  let abandoned: Awaited<ReturnType<typeof readOneChunk>>;

  async function readSlowly() {
    const s = shop();
    const admin = await withAccounts(s.t);
    const res = await s.t.app.handle(new Request(`http://localhost${EXPORT}`, { headers: admin.headers }));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let bytes = (await reader.read()).value!.byteLength;
    await s.laterRequestLogged();
    // The headers and the first rows are out, the rest not yet read: the request is not over.
    const whileReading = { line: s.requestLine(), timed: s.timed(), span: s.span() };
    await Bun.sleep(READING_MS);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.byteLength;
    await eventually(() => expect([s.requestLine(), s.timed(), s.span()].every(Boolean)).toBe(true));
    return { ...s, whileReading, bytes };
  }

  async function readOneChunk() {
    const s = shop();
    const admin = await withAccounts(s.t);
    const res = await s.t.app.handle(new Request(`http://localhost${EXPORT}`, { headers: admin.headers }));
    const reader = res.body!.getReader();
    const bytes = (await reader.read()).value!.byteLength;
    await reader.cancel();
    await eventually(() => expect([s.requestLine(), s.timed(), s.span()].every(Boolean)).toBe(true));
    return { ...s, bytes };
  }

  beforeAll(async () => {
    [sent, abandoned] = await Promise.all([readSlowly(), readOneChunk()]);
  });

  test("nothing is logged, counted or ended while the body is still being read", () => {
    expect(sent.whileReading).toEqual({ line: undefined, timed: undefined, span: undefined });
  });

  test("read whole: one line with the download's duration, its bytes and `body: sent`", () => {
    const line = sent.requestLine()!;
    expect(line).toMatchObject({ status: 200, body: "sent", bytes: sent.bytes });
    expect(line.durationMs as number).toBeGreaterThanOrEqual(READING_MS);
  });

  test("read whole: the histogram times the download, and the span ends with it, its size recorded", () => {
    expect(sent.timed()!.status).toBe(200);
    expect(sent.timed()!.seconds).toBeGreaterThanOrEqual(READING_MS / 1000);
    const span = sent.span()!;
    expect(span.attributes["http.response.body.size"]).toBe(sent.bytes);
    const [seconds, nanos] = span.duration;
    expect(seconds * 1000 + nanos / 1e6).toBeGreaterThanOrEqual(READING_MS);
  });

  test("given up by its client after the first chunk: logged as abandoned, with the bytes it had", () => {
    const line = abandoned.requestLine()!;
    expect(line).toMatchObject({ status: 200, body: "abandoned", bytes: abandoned.bytes });
    expect(abandoned.timed()).toBeDefined();
    expect(abandoned.span()!.attributes["storefront.body"]).toBe("abandoned");
  });
});

test("an answer that is not streamed is logged with its headers, as ever, without body or bytes", async () => {
  const s = shop();
  expect((await s.t.call("GET", "/api/products")).status).toBe(200);
  const line = await eventually(() => {
    const found = s.requestLine("/api/products");
    expect(found).toBeDefined();
    return found!;
  });
  expect(line.status).toBe(200);
  expect(Object.keys(line)).not.toContain("body");
  expect(Object.keys(line)).not.toContain("bytes");
});

test("cut by the shop after its first rows (the database lost mid-export): logged as cut with the bytes sent, the span failed, and export.cut says why", async () => {
  const s = shop();
  const admin = await withAccounts(s.t);
  const everyAccount = s.t.deps.repos.users.everyAccount;
  s.t.deps.repos.users.everyAccount = async function* (filter) {
    for await (const batch of everyAccount(filter, 100)) {
      yield batch;
      throw new Error("Connection terminated unexpectedly");
    }
  };
  const res = await s.t.app.handle(new Request(`http://localhost${EXPORT}`, { headers: admin.headers }));
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let bytes = 0;
  await expect(
    (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.byteLength;
    })(),
  ).rejects.toThrow();
  await eventually(() => expect([s.requestLine(), s.timed(), s.span()].every(Boolean)).toBe(true));
  expect(s.requestLine()).toMatchObject({ status: 200, body: "cut", bytes });
  expect(bytes).toBeGreaterThan(0);
  expect(s.span()!.attributes["error.type"]).toBe("body_cut");
  expect(s.span()!.status.code).toBe(SpanStatusCode.ERROR);
  expect(s.lines.find((line) => line.event === "export.cut")).toMatchObject({ export: "users" });
});
