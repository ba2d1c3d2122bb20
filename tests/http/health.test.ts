import { afterAll, expect, test } from "bun:test";
import { createPgProbe } from "../../src/adapters/db/store.ts";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { createTestApp } from "../support/http.ts";

// Nothing listens on port 1: the real driver fails to connect, as it would with the database down.
const { db: unreachable } = openDatabase({ kind: "postgres", url: "postgres://root@127.0.0.1:1/none" });
afterAll(() => unreachable.destroy());

test("health is 503 when the database does not answer, without leaking the cause", async () => {
  const t = createTestApp(createMemoryDeps({ database: createPgProbe(unreachable) }));
  const res = await t.call("GET", "/api/health");
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ status: "unavailable", error: "Database unavailable" });
});

test("GET /api names the shop and its version, and links the docs page and the OpenAPI document, which answer", async () => {
  const t = createTestApp();
  const res = await t.call("GET", "/api");
  expect(res.status).toBe(200);
  const { version } = await Bun.file(`${import.meta.dir}/../../package.json`).json();
  expect(res.body).toEqual({
    name: "Storefront",
    version,
    apiVersion: "1.0",
    docs: "http://localhost:3000/api/docs",
    openapi: "http://localhost:3000/api/openapi.json",
    health: "http://localhost:3000/api/health",
  });
  for (const link of [res.body.docs, res.body.openapi, res.body.health]) {
    expect({ link, status: (await t.call("GET", new URL(link).pathname)).status }).toEqual({ link, status: 200 });
  }
});
