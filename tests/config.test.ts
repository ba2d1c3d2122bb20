import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config.ts";

describe("configuration", () => {
  test("nothing configured means the embedded database in ./data on port 3000", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe("http://localhost:3000");
    expect(config.database).toEqual({ kind: "pglite", dataDir: "./data" });
    expect(config.trustProxy).toBe(false);
  });

  test("DATABASE_URL picks PostgreSQL or an in-memory embedded database; empty means unset", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://u@h:5432/db" }).database).toEqual({ kind: "postgres", url: "postgres://u@h:5432/db", poolMax: 10 });
    expect(loadConfig({ DATABASE_URL: "postgres://u@h:5432/db", DATABASE_POOL_MAX: "4" }).database).toMatchObject({ poolMax: 4 });
    expect(loadConfig({ DATABASE_URL: "pglite://memory" }).database).toEqual({ kind: "pglite", dataDir: null });
    expect(loadConfig({ DATABASE_URL: "", DATA_DIR: "/tmp/x" }).database).toEqual({ kind: "pglite", dataDir: "/tmp/x" });
  });

  test.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_POOL_MAX", "0"],
    ["DATABASE_URL", "mysql://localhost/db"],
    ["PUBLIC_URL", "not a url"],
    ["TRUST_PROXY", "yes please"],
    ["NODE_ENV", "staging"],
    ["BOOTSTRAP_ADMIN_PASSWORD", "éééé"],
    ["BOOTSTRAP_ADMIN_PASSWORD", "é".repeat(37)],
  ])("a bad %s (%s) is refused with a message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name}: `));
  });

  test("PUBLIC_URL loses a trailing slash", () => {
    expect(loadConfig({ PUBLIC_URL: "https://shop.example.com/" }).publicUrl).toBe("https://shop.example.com");
  });
});
