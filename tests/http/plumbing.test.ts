import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { z } from "zod";
import { DomainError, databaseUnavailable } from "../../src/domain/errors.ts";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { MAX_BODY_BYTES, bodyReading } from "../../src/adapters/http/plumbing/body.ts";
import { envelopeMacro } from "../../src/adapters/http/plumbing/envelope.ts";
import { errorMapper } from "../../src/adapters/http/plumbing/error-mapper.ts";
import { requestContext } from "../../src/adapters/http/plumbing/request-context.ts";
import { LOGGED_PATH_CHARS, requestLog } from "../../src/adapters/http/plumbing/request-log.ts";
import { routeTable } from "../../src/adapters/http/plumbing/route-table.ts";
import { eventually } from "../support/eventually.ts";
import { call, createTestApp } from "../support/http.ts";

/** The plumbing plugins in front of a few probe routes, with the log captured. */
function probeApp() {
  const lines: any[] = [];
  const logger = createJsonLogger("debug", (line) => lines.push(JSON.parse(line)));
  const routes = routeTable(() => app.routes);
  const app = new Elysia({ prefix: "/api" })
    .use(requestContext({ trustProxy: false, https: false, sessionCookieName: "session" }))
    .use(bodyReading(routes))
    .use(errorMapper(logger, routes))
    .use(requestLog(logger, async () => undefined))
    .use(envelopeMacro)
    .post("/echo", ({ body }) => body, { body: z.strictObject({ n: z.number().int(), tags: z.array(z.string()).optional() }) })
    .post("/form", ({ body }) => body, { body: z.object({ email: z.string(), password: z.string() }), parse: ["urlencoded", "formdata"] })
    .get("/moved", ({ redirect }) => redirect("/api/elsewhere", 302))
    .get("/bad-answer", () => ({ period: "-000001-12" }), { response: { 200: z.object({ period: z.iso.date() }) } })
    .get("/boom", () => {
      throw new Error("connection string postgres://secret@db leaked?");
    })
    .get("/database-away", () => {
      throw databaseUnavailable(new Error("connect ECONNREFUSED 10.0.0.5:5432"));
    })
    .get(
      "/products/missing",
      () => {
        throw new DomainError("product.not_found", "Product not found");
      },
      { envelope: true },
    );
  return { app, lines };
}

describe("HTTP plumbing", () => {
  test("every response carries X-Request-Id and X-API-Version, errors included", async () => {
    const { app } = probeApp();
    for (const path of ["/api/echo", "/api/nowhere", "/api/boom"]) {
      const res = await call(app, "GET", path);
      expect(res.headers.get("x-api-version")).toBe("1.0");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const traced = await call(app, "GET", "/api/nowhere", { headers: { "x-request-id": "trace-42" } });
    expect(traced.headers.get("x-request-id")).toBe("trace-42");
  });

  test("an unknown route is a 404 with { error }", async () => {
    const res = await call(probeApp().app, "GET", "/api/no/such/route");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found" });
  });

  test("malformed JSON is a 400, not a 500", async () => {
    const res = await call(probeApp().app, "POST", "/api/echo", { body: '{"n": 1,' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Malformed JSON in request body" });
  });

  test("schema violations list every issue with its path", async () => {
    const res = await call(probeApp().app, "POST", "/api/echo", { body: { n: "one", tags: [1] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid request");
    expect(res.body.details.issues.map((i: any) => i.path).sort()).toEqual(["n", "tags.0"]);
  });

  test("an answer of the shop's own that breaks its schema is a 500, not a 400 blaming the request (found by an attack)", async () => {
    const { app, lines } = probeApp();
    const res = await call(app, "GET", "/api/bad-answer");
    expect([res.status, res.body]).toEqual([500, { error: "Internal server error" }]);
    expect(lines.some((line) => line.level === "error")).toBe(true);
  });

  test("a body over 1 MB is a 413, whether declared or streamed", async () => {
    const { app } = probeApp();
    const big = JSON.stringify({ n: 1, tags: ["x".repeat(MAX_BODY_BYTES)] });
    const declared = await call(app, "POST", "/api/echo", { body: big });
    expect(declared.status).toBe(413);
    expect(declared.body.error).toBe("Request body too large");

    const stream = new Blob([big]).stream();
    const res = await app.handle(new Request("http://localhost/api/echo", { method: "POST", body: stream, headers: { "content-type": "application/json" } }));
    expect(res.status).toBe(413);
  });

  test("a body in a media type its route does not declare is a 415 naming the ones it does (JSON unless it says otherwise)", async () => {
    const { app } = probeApp();
    for (const type of ["application/xml", "text/plain", "application/x-www-form-urlencoded"]) {
      const res = await call(app, "POST", "/api/echo", { body: "n=1", headers: { "content-type": type } });
      expect({ type, status: res.status, accepted: res.body.details?.accepted }).toEqual({ type, status: 415, accepted: ["application/json"] });
    }
    const json = await call(app, "POST", "/api/form", { body: { email: "a", password: "b" } });
    expect(json.body.details.accepted).toEqual(["application/x-www-form-urlencoded", "multipart/form-data"]);
  });

  test("form bodies are read, URL-encoded or multipart", async () => {
    const { app } = probeApp();
    const form = new FormData();
    form.set("email", "Ann@Example.com");
    form.set("password", "not her password");
    for (const body of [form, new URLSearchParams({ email: "Ann@Example.com", password: "not her password" })]) {
      const res = await app.handle(new Request("http://localhost/api/form", { method: "POST", body }));
      expect(await res.json()).toEqual({ email: "Ann@Example.com", password: "not her password" });
    }
  });

  test("a NUL character anywhere in the input is a 400 naming where, before it can reach the database", async () => {
    const { app } = probeApp();
    const res = await call(app, "POST", "/api/echo?q=%00", { body: { n: 1, tags: ["ok", "b\u0000d"] } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      { path: "q", message: "must not contain a NUL character" },
      { path: "tags.1", message: "must not contain a NUL character" },
    ]);
  });

  test("a 500 hides the cause from the caller and logs it with the request id", async () => {
    const { app, lines } = probeApp();
    const res = await call(app, "GET", "/api/boom");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal server error" });
    const failure = lines.find((l) => l.event === "request.failed");
    expect(failure.requestId).toBe(res.headers.get("x-request-id"));
    expect(failure.error.message).toContain("leaked");
  });

  test("the database away is a 503 with Retry-After, never a 500: the caller is told to come back, the log says why", async () => {
    const { app, lines } = probeApp();
    const res = await call(app, "GET", "/api/database-away");
    expect([res.status, res.headers.get("retry-after")]).toEqual([503, "2"]);
    expect(res.body).toEqual({ error: "The shop cannot reach its database just now; please try again shortly" });
    expect(lines.find((l) => l.event === "request.refused")).toMatchObject({
      level: "warn",
      requestId: res.headers.get("x-request-id"),
      code: "database.unavailable",
      error: "The shop cannot reach its database just now; please try again shortly",
      reason: "connect ECONNREFUSED 10.0.0.5:5432",
    });
    expect(lines.some((l) => l.event === "request.failed")).toBe(false);
  });

  test("envelope routes report errors in the envelope", async () => {
    const res = await call(probeApp().app, "GET", "/api/products/missing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, data: null, error: "Product not found" });
  });

  test("each request is logged as one JSON line with method, path, status, duration and id", async () => {
    const { app, lines } = probeApp();
    const res = await call(app, "GET", "/api/nowhere");
    const entry = await eventually(() => {
      const found = lines.find((l) => l.event === "request");
      expect(found).toMatchObject({ method: "GET", path: "/api/nowhere", status: 404, requestId: res.headers.get("x-request-id") });
      return found;
    });
    expect(typeof entry.durationMs).toBe("number");
  });

  test("a path of over 1,000 characters is logged cut, with its length", async () => {
    const { app, lines } = probeApp();
    const path = `/api/${"x".repeat(12_000)}`;
    expect((await call(app, "GET", path)).status).toBe(404);
    const entry = await eventually(() => {
      const found = lines.find((l) => l.event === "request");
      expect(found).toMatchObject({ status: 404, pathLength: path.length });
      return found;
    });
    expect(entry.path).toBe(path.slice(0, LOGGED_PATH_CHARS));
  });

  test("a redirect is logged with its own status", async () => {
    const { app, lines } = probeApp();
    const res = await call(app, "GET", "/api/moved");
    expect(res.status).toBe(302);
    await eventually(() => expect(lines.find((l) => l.event === "request")).toMatchObject({ path: "/api/moved", status: 302 }));
  });
});

describe("API documents", () => {
  test("the OpenAPI 3.1 document describes every route with its parameters and responses", async () => {
    const res = await createTestApp().call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toStartWith("3.1");
    const paths = res.body.paths;
    for (const path of ["/api/products", "/api/products/{id}", "/api/locations", "/api/locations/nearby", "/api/health"]) {
      expect(paths[path]?.get).toBeDefined();
      expect(paths[path].get.responses["200"]).toBeDefined();
    }
    const params = paths["/api/locations/nearby"].get.parameters.map((p: any) => p.name);
    expect(params).toEqual(expect.arrayContaining(["lat", "lng", "radius", "limit"]));
  });

  test("every operation documents its responses, and every body its content type and schema", async () => {
    const { paths, components } = (await createTestApp().call("GET", "/api/openapi.json")).body;
    // Request bodies are named shapes: each is a reference to components.schemas.
    const resolve = (schema: any) => (schema?.$ref ? components.schemas[schema.$ref.replace("#/components/schemas/", "")] : schema);
    const operations = Object.entries(paths).flatMap(([path, byMethod]: [string, any]) =>
      Object.entries(byMethod).map(([method, operation]: [string, any]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(25);
    for (const { route, operation } of operations) {
      expect({ route, responses: Object.keys(operation.responses ?? {}).length > 0 }).toEqual({ route, responses: true });
      if (!operation.requestBody) continue;
      const schemas = Object.values(operation.requestBody.content).map((c: any) => resolve(c.schema));
      // An optional body (sign-out's) is an object or nothing at all.
      const isObject = (schema: any) =>
        schema?.type === "object" ||
        (Array.isArray(schema?.type) && schema.type.includes("object") && schema.type.every((t: string) => t === "object" || t === "null"));
      expect({ route, documented: schemas.length > 0 && schemas.every(isObject) }).toEqual({ route, documented: true });
    }
    const addToCart = resolve(paths["/api/cart"].post.requestBody.content["application/json"].schema);
    expect(addToCart.required).toEqual(["productId", "quantity"]);
  });

  test("the docs page is served", async () => {
    const res = await createTestApp().call("GET", "/api/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
  });
});

describe("GET /api/health", () => {
  test("ok while the database answers", async () => {
    const res = await createTestApp().call("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
});
