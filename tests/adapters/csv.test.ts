import { expect, test } from "bun:test";
import { csvCell, csvDocument, csvFileName, csvRows } from "../../src/adapters/presenters/csv.ts";
import { csvResponse } from "../../src/adapters/http/csv.ts";

test("RFC 4180: commas, quotes and line breaks are quoted, quotes doubled, lines end in CRLF", () => {
  expect(
    csvRows([
      ["name", "address"],
      ['Ghost "Pepper"', "1 Main St, Apt 2\nAustin"],
    ]),
  ).toBe('name,address\r\n"Ghost ""Pepper""","1 Main St, Apt 2\nAustin"\r\n');
});

test("a line break alone, LF or CR, is quoted too: unquoted, a spreadsheet would start a new row inside the cell", () => {
  expect(csvRows([["First line\nSecond line", "a\rb", "plain"]])).toBe('"First line\nSecond line","a\rb",plain\r\n');
});

test("non-ASCII is written as it is, in UTF-8", () => {
  expect(csvRows([["Piment d'Espelette — 🌶️", "Zoë"]])).toBe("Piment d'Espelette — 🌶️,Zoë\r\n");
});

test("a text cell a spreadsheet would run as a formula gets a leading quote; numbers and money stay as they are", () => {
  for (const formula of ['=HYPERLINK("http://evil")', "+1", "-1+2", "@SUM(A1)", "\tx", "\rx"]) expect(csvCell(formula)).toBe(`'${formula}`);
  for (const plain of ["Habanero", "a=b", "1-2", "", "'quoted"]) expect(csvCell(plain)).toBe(plain);
  expect([csvCell(-3), csvCell({ cents: -1250 }), csvCell({ cents: 5 }), csvCell(null), csvCell(true)]).toEqual(["-3", "-12.50", "0.05", "", "true"]);
  expect(csvCell(new Date("2026-11-25T01:02:03Z"))).toBe("2026-11-25T01:02:03.000Z");
  expect(csvRows([["=1+1", "a,b"]])).toBe('\'=1+1,"a,b"\r\n');
});

test("a document is its header, then each batch as it comes; an export is offered as <what>-<YYYYMMDD>.csv", async () => {
  async function* batches() {
    yield [1, 2];
    yield [];
    yield [3];
  }
  const chunks: string[] = [];
  for await (const chunk of csvDocument(["n", "square"], batches(), (n: number) => [n, n * n])) chunks.push(chunk);
  expect(chunks).toEqual(["n,square\r\n", "1,1\r\n2,4\r\n", "3,9\r\n"]);
  expect(csvFileName("orders", new Date("2026-01-05T23:59:00Z"))).toBe("orders-20260105.csv");
});

test("the HTTP answer is text/csv, a download with its dated name, and streams the chunks", async () => {
  async function* chunks() {
    yield "a\r\n";
    yield "b\r\n";
  }
  const res = csvResponse("users", new Date("2026-11-25T12:00:00Z"), chunks());
  expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(res.headers.get("content-disposition")).toBe('attachment; filename="users-20261125.csv"');
  expect(await res.text()).toBe("a\r\nb\r\n");
});

test("an empty cell is empty, not quoted", () => {
  expect(csvRows([["a", null, "", "b"]])).toBe("a,,,b\r\n");
});
