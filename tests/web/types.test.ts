import { expect, test } from "bun:test";
import { SCHEMA_FILE, schemaTypes } from "../../web/api/generate.ts";

// Decisions §13: the web pages' client is typed from the shop's own document. A route or schema
// changed without `npm run web:types` leaves the committed types behind the API, and this fails.
test("web/api/schema.d.ts is what openapi-typescript makes of the served /api/openapi.json", async () => {
  const committed = await Bun.file(SCHEMA_FILE).text();
  const served = await schemaTypes();
  if (committed !== served) throw new Error("web/api/schema.d.ts differs from the served document: run `npm run web:types` and commit it");
  expect(committed).toContain('"/api/cart/checkout"');
}, 20_000);
