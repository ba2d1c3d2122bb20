import { expect, test } from "bun:test";
import { CSV_CHUNK_ROWS, csvCell, csvDocument, csvFileName, csvRows } from "../../src/adapters/presenters/csv.ts";
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
  const money = [0, 7, -7, 10, 99, 100, 105, -105, 123_456_789, -99_999].map((cents) => csvCell({ cents }));
  expect(money).toEqual(["0.00", "0.07", "-0.07", "0.10", "0.99", "1.00", "1.05", "-1.05", "1234567.89", "-999.99"]);
  expect(csvCell(new Date("2026-11-25T01:02:03Z"))).toBe("2026-11-25T01:02:03.000Z");
  expect(csvRows([["=1+1", "a,b"]])).toBe('\'=1+1,"a,b"\r\n');
});

test("a document is its header, then each batch as it comes", async () => {
  async function* batches() {
    yield [1, 2];
    yield [];
    yield [3];
  }
  const chunks: string[] = [];
  for await (const chunk of csvDocument(["n", "square"], batches(), (n: number) => [n, n * n])) chunks.push(chunk);
  expect(chunks).toEqual(["n,square\r\n", "1,1\r\n2,4\r\n", "3,9\r\n"]);
});

test("an export is offered as <what>-<YYYYMMDD>.csv, dated as the shop's clocks show the instant", () => {
  const lateEvening = new Date("2026-01-05T23:59:00Z");
  expect(csvFileName("orders", lateEvening, "UTC")).toBe("orders-20260105.csv");
  // Already the 6th in Tokyo, still the 5th in New York at 04:30 UTC on the 6th.
  expect(csvFileName("orders", lateEvening, "Asia/Tokyo")).toBe("orders-20260106.csv");
  expect(csvFileName("sales", new Date("2026-01-06T04:30:00Z"), "America/New_York")).toBe("sales-20260105.csv");
  // The clocks went forward on 8 March 2026: that day began at 05:00 UTC (EST), the 9th at 04:00 UTC (EDT).
  expect(csvFileName("users", new Date("2026-03-08T04:59:00Z"), "America/New_York")).toBe("users-20260307.csv");
  expect(csvFileName("users", new Date("2026-03-09T03:59:00Z"), "America/New_York")).toBe("users-20260308.csv");
  expect(csvFileName("users", new Date("2026-03-09T04:00:00Z"), "America/New_York")).toBe("users-20260309.csv");
});

test("a batch of a thousand rows is written as chunks of at most CSV_CHUNK_ROWS, in order, none lost", async () => {
  async function* batches() {
    yield Array.from({ length: 1000 }, (_, i) => i);
    yield [1000];
  }
  const chunks: string[] = [];
  for await (const chunk of csvDocument(["n"], batches(), (n: number) => [n])) chunks.push(chunk);
  const rowsPerChunk = chunks.slice(1).map((chunk) => chunk.split("\r\n").length - 1);
  expect(rowsPerChunk).toEqual([CSV_CHUNK_ROWS, CSV_CHUNK_ROWS, CSV_CHUNK_ROWS, CSV_CHUNK_ROWS, 1]);
  expect(chunks.join("")).toBe(`n\r\n${Array.from({ length: 1001 }, (_, i) => `${i}\r\n`).join("")}`);
});

test("the HTTP answer is text/csv, a download with its dated name, and streams the chunks", async () => {
  async function* chunks() {
    yield "a\r\n";
    yield "b\r\n";
  }
  const res = csvResponse(new Request("http://localhost/api/admin/users/export"), "users-20261125.csv", chunks());
  expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(res.headers.get("content-disposition")).toBe('attachment; filename="users-20261125.csv"');
  expect(await res.text()).toBe("a\r\nb\r\n");
});

test("between two chunks of a streamed answer, other work waiting on the thread gets its turn", async () => {
  let turns = 0;
  let streaming = true;
  const otherWork = () => {
    turns++;
    if (streaming) setImmediate(otherWork);
  };
  setImmediate(otherWork);
  const turnsSeen: number[] = [];
  async function* chunks() {
    for (let i = 0; i < 5; i++) {
      turnsSeen.push(turns);
      yield `${i}\r\n`;
    }
  }
  expect(await csvResponse(new Request("http://localhost/api/admin/orders/export"), "orders.csv", chunks()).text()).toBe("0\r\n1\r\n2\r\n3\r\n4\r\n");
  streaming = false;
  // Each chunk was made after the other work had run once more.
  for (let i = 1; i < turnsSeen.length; i++) expect(turnsSeen[i]!).toBeGreaterThan(turnsSeen[i - 1]!);
});

test("an empty cell is empty, not quoted", () => {
  expect(csvRows([["a", null, "", "b"]])).toBe("a,,,b\r\n");
});
