import { describe, expect, test } from "bun:test";
import { SLUG_PATTERN } from "../../src/domain/ids.ts";
import { slugify } from "../../src/domain/product.ts";

describe("slugify", () => {
  test.each([
    ["Ghost Pepper Fury!", "ghost-pepper-fury"],
    ["  Smokehouse -- Hickory  BBQ ", "smokehouse-hickory-bbq"],
    ["Jalapeño Crème Brûlée", "jalapeno-creme-brulee"],
    ["Scoville 1,000,000+", "scoville-1-000-000"],
    ["ＦＵＬＬ Width", "full-width"],
    ["🌶️🔥", ""],
    ["Heiße Soße", "heisse-sosse"],
    ["Ærø Chili", "aero-chili"],
    ["Łódź Ostry", "lodz-ostry"],
    ["Acı Biber", "aci-biber"],
    ["Þórr's Œuvre", "thorr-s-oeuvre"],
  ])("%p → %p", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  test("what it makes is always a valid slug, at most 200 characters", () => {
    for (const name of ["a".repeat(500), `${"word ".repeat(60)}!`, "-x-", "Ünïcödé — and more"]) {
      const slug = slugify(name);
      expect(slug.length).toBeLessThanOrEqual(200);
      expect(slug).toMatch(new RegExp(SLUG_PATTERN));
    }
  });
});
