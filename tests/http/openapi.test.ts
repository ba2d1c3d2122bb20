import { beforeAll, describe, expect, test } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { finishDocument } from "../../src/adapters/http/docs/finish-document.ts";
import { createIdentityProviders } from "../../src/adapters/identity/index.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { createTestApp } from "../support/http.ts";

const SHOP = "https://shop.example.com";
let doc: any;
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod as Record<string, any>).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );

beforeAll(async () => {
  doc = (await createTestApp(createMemoryDeps(), { publicUrl: SHOP }).call("GET", "/api/openapi.json")).body;
});

describe("the OpenAPI document (decisions §10)", () => {
  test("redocly lint with its recommended rules reports no error", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${SHOP}/api/openapi.json`, config });
    const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    // Nor does the document name what it never uses.
    expect(problems.filter((p) => p.ruleId === "no-unused-components").map((p) => p.location[0]?.pointer)).toEqual([]);
  });

  test("servers is PUBLIC_URL; named schemas sit in components.schemas", () => {
    expect(doc.servers).toEqual([{ url: SHOP, description: "This shop (PUBLIC_URL)" }]);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["Product", "Location", "NearbyLocation", "Cart", "CartItem", "Profile", "SessionUser", "Error", "EnvelopeError"]),
    );
    const cart = doc.paths["/api/cart"].get.responses["200"].content["application/json"].schema;
    expect(cart).toEqual({ $ref: "#/components/schemas/Cart" });
  });

  test("every operation states its security: the cookie or Bearer where a session is needed, optional where it may be, none on public reads", () => {
    const security = (route: string) => operations().find((o) => o.route === route)?.operation.security;
    const required = [{ session: [] }, { bearer: [] }];
    expect(operations().every(({ operation }) => Array.isArray(operation.security))).toBe(true);
    expect(security("GET /api/cart")).toEqual(required);
    expect(security("POST /api/products")).toEqual(required);
    expect(security("GET /api/auth/session")).toEqual([{}, ...required]);
    expect(security("GET /api/products")).toEqual([]);
    expect(security("GET /api/locations/nearby")).toEqual([]);
    expect(doc.components.securitySchemes).toMatchObject({ session: { type: "apiKey", in: "cookie" }, bearer: { type: "http", scheme: "bearer" } });
  });

  test("what each operation says of its security is what it does: asked without a session, exactly those that require one answer 401", async () => {
    const t = createTestApp();
    for (const { route, operation } of operations()) {
      const [method, path] = route.split(" ") as [string, string];
      const concrete = path.replace(/\{[^}]+\}/g, "z12345678901234567890123");
      const res = await t.call(method, concrete, { body: method === "GET" ? undefined : {} });
      const documentedRequired = operation.security.length > 0 && operation.security.every((r: object) => Object.keys(r).length > 0);
      expect({ route, requiresSession: res.status === 401 }).toEqual({ route, requiresSession: documentedRequired });
    }
  });

  test("the error answers are documented where they can happen: 400 and 500 everywhere, 401 with a session, 413 and 415 wherever a body may come, 503 (the database away) everywhere", () => {
    for (const { route, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      const expected = ["400", "500", "503"];
      if (operation.security.length && operation.security.every((r: object) => Object.keys(r).length)) expected.push("401");
      // A webhook takes its body raw, in whatever media type: too large, never unsupported.
      if (!route.startsWith("GET ")) expected.push(...(route.includes("/webhooks/") ? ["413"] : ["413", "415"]));
      // Decisions §9: everything but health and webhooks is rate-limited.
      if (!route.endsWith("/api/health") && !route.endsWith("/api/health/ready") && !route.includes("/webhooks/")) expected.push("429");
      expect({ route, missing: expected.filter((s) => !statuses.includes(s)) }).toEqual({ route, missing: [] });
    }
    expect(doc.paths["/api/products"].post.responses["413"]).toEqual({ $ref: "#/components/responses/EnvelopePayloadTooLarge" });
    expect(doc.paths["/api/cart"].post.responses["415"]).toEqual({ $ref: "#/components/responses/UnsupportedMediaType" });
    expect(doc.components.responses.TooManyRequests.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
  });

  test("a route that takes no input still refuses a query string that is not UTF-8, or a GET's body, with a 400 its operation documents (found by the fuzz)", async () => {
    const t = createTestApp();
    const { headers } = await signedInAs(t);
    for (const path of ["/api", "/api/health", "/api/auth/session", "/api/auth/providers", "/api/cart"]) {
      expect({ path, parameters: doc.paths[path].get.parameters, documented: doc.paths[path].get.responses["400"] }).toEqual({
        path,
        parameters: undefined,
        documented: { $ref: "#/components/responses/BadRequest" },
      });
      const query = await t.call("GET", `${path}?%FF`, { headers });
      expect({ path, status: query.status, body: query.body }).toEqual({ path, status: 400, body: { error: "Query string is not valid UTF-8" } });
      const body = await t.app.handle(
        new Request(`http://localhost${path}`, { headers: { ...headers, "content-type": "application/json", "content-length": "2" }, body: "{}" }),
      );
      expect({ path, status: body.status, body: await body.json() }).toEqual({ path, status: 400, body: { error: "A GET request takes no body" } });
    }
    expect(doc.components.responses.BadRequest.description).toContain("a query string that is not UTF-8, a GET with a body");
  });

  test("a redirect is documented as the shop answers it: no body, and a Location (found by the fuzz)", async () => {
    const providers = createIdentityProviders({ github: { clientId: "gh-client", clientSecret: "gh-secret" } }, SHOP);
    const res = await createTestApp(createMemoryDeps({ identityProviders: providers })).call("GET", "/api/auth/signin/github");
    expect({ status: res.status, body: res.body, contentType: res.headers.get("content-type") }).toEqual({ status: 302, body: "", contentType: null });
    expect(res.headers.get("location")).toStartWith("https://github.com/login/oauth/authorize?");
    const redirects = operations().flatMap(({ route, operation }) =>
      Object.entries(operation.responses)
        .filter(([status]) => status.startsWith("3"))
        .map(([, r]) => ({ route, r })),
    );
    expect(redirects.map(({ route }) => route)).toEqual([
      "GET /api/auth/signin/{provider}",
      "GET /api/auth/callback/{provider}",
      "POST /api/auth/callback/{provider}",
    ]);
    for (const { route, r } of redirects as { route: string; r: any }[]) {
      expect({ route, content: r.content, location: r.headers.Location.schema }).toEqual({
        route,
        content: undefined,
        location: { type: "string", format: "uri" },
      });
    }
  });

  test("route-specific answers: 503 and the password limits' 429 where passwords are checked, 409 on a move or a cancel that waits on a payment, the webhooks' own 400s, X-Total-Count and Idempotent-Replayed", () => {
    for (const [path, method, ref] of [
      ["/api/auth/callback/credentials", "post", "ServiceUnavailable"],
      ["/api/auth/register", "post", "ServiceUnavailable"],
      ["/api/users/password", "post", "EnvelopeServiceUnavailable"],
    ] as const) {
      expect(doc.paths[path][method].responses["503"]).toEqual({ $ref: `#/components/responses/${ref}` });
    }
    expect(doc.components.responses.ServiceUnavailable.headers["Retry-After"].schema).toEqual({ type: "integer" });
    // Decisions §15: where passwords are checked, 429 is also the password routes' own limit and the fair line's refusal.
    for (const [path, ref] of [
      ["/api/auth/callback/credentials", "TooManyPasswordChecks"],
      ["/api/auth/register", "TooManyPasswordChecks"],
      ["/api/users/password", "EnvelopeTooManyPasswordChecks"],
    ] as const) {
      expect(doc.paths[path].post.responses["429"]).toEqual({ $ref: `#/components/responses/${ref}` });
    }
    const passwordChecks = doc.components.responses.TooManyPasswordChecks;
    expect(passwordChecks.description).toContain("PASSWORD_RATE_LIMIT_MAX");
    expect(passwordChecks.description).toContain("already waiting");
    expect(Object.keys(passwordChecks.headers)).toEqual(["Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]);
    expect(doc.paths["/api/products"].get.responses["429"]).toEqual({ $ref: "#/components/responses/EnvelopeTooManyRequests" });
    expect(doc.paths["/api/auth/signout"].post.responses["429"]).toEqual({ $ref: "#/components/responses/TooManyRequests" });
    // A route's own shape stays its own: health's 503 is no error body.
    expect(doc.paths["/api/health"].get.responses["503"].content["application/json"].schema.properties.status).toEqual({
      type: "string",
      const: "unavailable",
    });
    expect(doc.paths["/api/orders/{id}/status"].put.responses["409"]).toEqual({ $ref: "#/components/responses/Conflict" });
    expect(doc.paths["/api/orders/{id}/status"].put.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Order" });
    // The spec: "Status codes used for success: 200 and 201", on every operation (a move whose refund is due included).
    const successes = Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.keys(operation.responses ?? {})
          .filter((code) => code.startsWith("2") && code !== "200" && code !== "201")
          .map((code) => `${method.toUpperCase()} ${path} ${code}`),
      ),
    );
    expect(successes).toEqual([]);
    const cancel = doc.paths["/api/orders/{id}/cancel"].post;
    expect(cancel.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Order" });
    expect(Object.keys(cancel.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "413", "415", "429", "500", "503"]);
    expect(cancel.description).toContain("Order has already been paid");
    for (const provider of ["stripe", "paypal", "square", "easypost", "resend"]) {
      expect(doc.paths[`/api/webhooks/${provider}`].post.responses["400"].description).toContain("`Invalid signature`");
    }
    expect(Object.keys(doc.paths["/api/orders"].get.responses["200"].headers)).toEqual(["X-Total-Count"]);
    for (const path of ["/api/orders", "/api/cart/checkout", "/api/payment"]) {
      expect(Object.keys(doc.paths[path].post.responses["200"].headers)).toEqual(["Idempotent-Replayed"]);
    }
  });

  test("the session cookie is a response header wherever the shop sets or clears it, named as the cookie scheme names it, as the shop writes it", async () => {
    const withCookie = operations()
      .filter(({ operation }) => Object.values(operation.responses).some((response: any) => response.headers?.["Set-Cookie"]))
      .map(({ route }) => route);
    expect(withCookie.sort()).toEqual([
      "GET /api/auth/callback/{provider}",
      "POST /api/auth/callback/credentials",
      "POST /api/auth/callback/{provider}",
      "POST /api/auth/signout",
      "POST /api/users/password",
    ]);
    // A generated client reads the token where sign-in documents it; what it documents is what sign-in and sign-out write.
    for (const url of [SHOP, "http://localhost:3000"]) {
      const t = createTestApp(createMemoryDeps(), { publicUrl: url });
      const document = (await t.call("GET", "/api/openapi.json")).body;
      const cookieName = document.components.securitySchemes.session.name;
      const documented = (path: string, status = "200") => document.paths[path].post.responses[status].headers["Set-Cookie"];
      const account = { email: "ann@example.com", password: "a long enough secret" };
      expect((await t.call("POST", "/api/auth/register", { body: account })).status).toBe(201);
      const signIn = await t.call("POST", "/api/auth/callback/credentials", { body: account });
      const [written] = signIn.headers.getSetCookie();
      expect(written?.startsWith(`${cookieName}=ey`)).toBe(true);
      expect(documented("/api/auth/callback/credentials").example).toBe(written?.replace(/=[^;]+;/, "=<token>;"));
      expect(documented("/api/auth/callback/credentials").description).toContain("30 days");
      const signOut = await t.call("POST", "/api/auth/signout", { body: {} });
      expect(documented("/api/auth/signout").example).toBe(signOut.headers.getSetCookie()[0]);
      expect(documented("/api/auth/signout").example).toContain(url === SHOP ? "Secure" : "SameSite=Lax");
      expect(documented("/api/auth/signout").example.includes("Secure")).toBe(url === SHOP);
    }
  });

  test("shared shapes are named and referenced where used: Address and OrderItem in an order, CartItem in a cart, AddressInput in the checkout bodies", () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const { Order, Cart } = doc.components.schemas;
    expect(Order.properties.shippingAddress).toEqual(ref("Address"));
    expect(Order.properties.billingAddress).toEqual(ref("Address"));
    expect(Order.properties.items.items).toEqual(ref("OrderItem"));
    expect(Cart.properties.items.items).toEqual(ref("CartItem"));
    expect(doc.components.schemas.Address.properties).toHaveProperty("postalCode");
    expect(doc.components.schemas.OrderItem.properties).toHaveProperty("unitPrice");
    for (const path of ["/api/orders", "/api/cart/checkout"]) {
      const name = doc.paths[path].post.requestBody.content["application/json"].schema.$ref.split("/").pop();
      const body = doc.components.schemas[name];
      expect(body.properties.shippingAddress).toEqual(ref("AddressInput"));
      expect(body.properties.billingAddress.anyOf).toContainEqual(ref("AddressInput"));
    }
  });

  test("no object shape is written out inline twice: each one used in two places or more has a name", () => {
    const seen = new Map<string, string[]>();
    const walk = (value: unknown, at: string) => {
      if (value === null || typeof value !== "object") return;
      const schema = value as Record<string, unknown>;
      if (schema.type === "object" && schema.properties) seen.set(JSON.stringify(schema), [...(seen.get(JSON.stringify(schema)) ?? []), at]);
      for (const [key, inner] of Object.entries(schema)) walk(inner, `${at}/${key}`);
    };
    walk(doc, "#");
    expect([...seen.values()].filter((places) => places.length > 1)).toEqual([]);
  });

  test("a name means one shape: two routes giving one name to different shapes stop the document from being built", () => {
    const answer = (shape: object) => ({
      responses: { 200: { content: { "application/json": { schema: { $ref: "#/$defs/Thing", $defs: { Thing: shape } } } } } },
    });
    const build = (other: object) =>
      finishDocument(
        { paths: { "/a": { get: answer({ type: "string" }) }, "/b": { get: answer(other) } } },
        { publicUrl: SHOP, cookieName: "c", version: "1" },
      );
    expect(build({ type: "string" }).components.schemas.Thing).toEqual({ type: "string" });
    expect(() => build({ type: "integer" })).toThrow("Thing");
  });

  test("every JSON request body (and the sign-in form's) is a named schema in components.schemas; the webhooks' bodies stay the providers'", () => {
    const bodies = operations().filter(({ route, operation }) => operation.requestBody && !route.includes("/webhooks/"));
    expect(bodies.length).toBeGreaterThan(10);
    for (const { route, operation } of bodies) {
      for (const [type, { schema }] of Object.entries(operation.requestBody.content as Record<string, { schema: any }>)) {
        // Apple's form is the provider's too: the shop only reads it.
        if (route === "POST /api/auth/callback/{provider}") continue;
        const name = String(schema.$ref).replace("#/components/schemas/", "");
        expect({ route, type, schema: Object.keys(schema) }).toEqual({ route, type, schema: ["$ref"] });
        expect({ route, named: name in doc.components.schemas }).toEqual({ route, named: true });
      }
    }
    const names = (...routes: string[]) =>
      routes.map((route) =>
        operations()
          .find((o) => o.route === route)
          ?.operation.requestBody.content["application/json"].schema.$ref.split("/")
          .pop(),
      );
    expect(names("POST /api/auth/callback/credentials", "POST /api/cart", "POST /api/cart/items", "PUT /api/orders/{id}/status", "POST /api/payment")).toEqual([
      "Credentials",
      "CartItemInput",
      "CartItemInput",
      "StatusChange",
      "PaymentRequest",
    ]);
  });

  test("each response says in words what it is: none keeps the generator's `Response for status …`", () => {
    const answers = [
      ...operations().flatMap(({ route, operation }) =>
        Object.entries(operation.responses).map(([status, response]) => ({ at: `${route} ${status}`, response })),
      ),
      ...Object.entries(doc.components.responses).map(([name, response]) => ({ at: name, response })),
    ];
    const undescribed = answers
      .filter(({ response }: { response: any }) => !response.$ref && (!response.description || /^Response for status/.test(response.description)))
      .map(({ at }) => at);
    expect(undescribed).toEqual([]);
    const described = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].description;
    expect(described("/api/auth/session", "get", "200")).toContain("when it expires");
    expect(described("/api/orders/{id}/cancel", "post", "200")).toContain("order");
    // The words are the answer's, not also its schema's: a named shape stays a bare reference.
    expect(doc.paths["/api/orders/{id}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Order" });
  });

  test("numeric query parameters are numbers with their limits, not patterned strings", () => {
    const parameter = (path: string, name: string) => doc.paths[path].get.parameters.find((p: any) => p.name === name)?.schema;
    expect(parameter("/api/products", "limit")).toEqual({ type: "integer", minimum: 1, maximum: 100 });
    expect(parameter("/api/products", "page")).toEqual({ type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(parameter("/api/products", "heatLevel")).toEqual({ type: "integer", minimum: 0, maximum: 5 });
    expect(parameter("/api/products", "minPrice")).toMatchObject({ type: "number", minimum: 0 });
    expect(parameter("/api/locations/nearby", "lat")).toEqual({ type: "number", minimum: -90, maximum: 90 });
    expect(parameter("/api/locations/nearby", "radius")).toMatchObject({ type: "number", maximum: 500 });
    for (const { operation } of operations()) {
      for (const p of operation.parameters ?? [])
        expect({ name: p.name, pattern: p.schema.pattern === "^-?\\d+(\\.\\d+)?$" }).toEqual({ name: p.name, pattern: false });
    }
  });

  test("every back-office answer is a named schema (issue 20): the envelope itself has a name, not only its data", () => {
    const answers = operations()
      .filter(({ operation }) => operation.tags?.includes("Back office"))
      .flatMap(({ route, operation }) => {
        const schema = operation.responses["200"]?.content?.["application/json"]?.schema;
        return schema ? [{ route, named: typeof schema.$ref === "string" }] : [];
      });
    expect(answers.length).toBeGreaterThanOrEqual(9);
    expect(answers.filter((answer) => !answer.named)).toEqual([]);
  });

  test("every CSV download is documented as one: text/csv, named by its Content-Disposition", () => {
    const downloads = operations().filter(({ operation }) => operation.responses["200"]?.content?.["text/csv"]);
    expect(downloads.map(({ route }) => route).sort()).toEqual([
      "GET /api/admin/orders/export",
      "GET /api/admin/reports/sales/export",
      "GET /api/admin/users/export",
    ]);
    for (const { route, operation } of downloads) {
      expect({ route, headers: Object.keys(operation.responses["200"].headers ?? {}) }).toEqual({ route, headers: ["Content-Disposition"] });
    }
  });

  test("the back office's accounts and audit log: named answers in the envelope, the permission in each summary, the export as a CSV download", () => {
    // Each answer is a named schema: the envelope, with the named item or record as its data.
    const json = (operation: any, status: string) => {
      const { $ref } = operation.responses[status].content["application/json"].schema;
      expect($ref).toMatch(/^#\/components\/schemas\/[A-Za-z]+$/);
      return doc.components.schemas[$ref.split("/").at(-1)];
    };
    const users = doc.paths["/api/admin/users"].get;
    expect(users.summary).toContain("users:read");
    expect(json(users, "200").properties.data.items).toEqual({ $ref: "#/components/schemas/AccountSummary" });
    expect(json(doc.paths["/api/admin/users/{id}"].get, "200").properties.data).toEqual({ $ref: "#/components/schemas/AccountDetail" });
    const role = doc.paths["/api/admin/users/{id}/role"].put;
    expect(role.summary).toContain("users:write");
    expect(json(role, "200").properties.data).toEqual({ $ref: "#/components/schemas/Account" });
    expect(role.responses["409"]).toEqual({ $ref: "#/components/responses/EnvelopeConflict" });
    expect(json(doc.paths["/api/admin/audit"].get, "200").properties.data.items).toEqual({ $ref: "#/components/schemas/AuditEntry" });
    const csv = doc.paths["/api/admin/users/export"].get;
    expect(csv.summary).toContain("users:export");
    expect(Object.keys(csv.responses["200"].content)).toEqual(["text/csv"]);
    expect(Object.keys(csv.responses["200"].headers)).toEqual(["Content-Disposition"]);
    expect(csv.responses["403"]).toEqual({ $ref: "#/components/responses/EnvelopeForbidden" });
    expect(JSON.stringify(doc.components.schemas.AccountSummary)).not.toMatch(/password_?hash/i);
  });
});
