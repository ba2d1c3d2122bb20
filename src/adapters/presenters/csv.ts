import { stringify } from "csv-stringify/sync";

/** Money in a CSV column: dollars with two decimals (negative allowed: a period's net of refunds). */
export interface CsvMoney {
  cents: number;
}

export type CsvCell = string | number | boolean | null | Date | CsvMoney;

/** A cell a spreadsheet would run as a formula begins with one of these (decisions §12). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell as text. Text that a spreadsheet would take for a formula (it begins with =, +, -, @, a
 * tab or a carriage return) gets a leading ' so it stays text (decisions §12: formula injection);
 * numbers, money and dates are the shop's own and written as they are.
 */
export function csvCell(cell: CsvCell): string {
  if (cell === null) return "";
  if (typeof cell === "string") return FORMULA_START.test(cell) ? `'${cell}` : cell;
  if (typeof cell === "number" || typeof cell === "boolean") return String(cell);
  if (cell instanceof Date) return cell.toISOString();
  return (cell.cents / 100).toFixed(2);
}

/**
 * Rows as RFC 4180 CSV: quoted where they need it, quotes doubled, CRLF line ends. A lone LF or CR
 * in a cell is quoted as well: with a record delimiter given, csv-stringify would quote only CRLF.
 */
export function csvRows(rows: readonly (readonly CsvCell[])[]): string {
  return stringify(
    rows.map((row) => row.map(csvCell)),
    { record_delimiter: "\r\n", quote_record_delimiter: true },
  );
}

/**
 * A CSV document as text chunks: the header, then each batch of rows as it comes, so an export of
 * any size is written batch by batch and never held whole (decisions §12).
 */
export async function* csvDocument<T>(
  header: readonly string[],
  batches: AsyncIterable<readonly T[]>,
  row: (item: T) => readonly CsvCell[],
): AsyncGenerator<string> {
  yield csvRows([header]);
  for await (const batch of batches) if (batch.length > 0) yield csvRows(batch.map(row));
}

/** The file name an export is offered under: `<what>-<YYYYMMDD>.csv`, dated in UTC. */
export function csvFileName(what: string, at: Date): string {
  return `${what}-${at.toISOString().slice(0, 10).replaceAll("-", "")}.csv`;
}
