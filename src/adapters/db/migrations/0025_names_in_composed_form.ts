import { type Kysely, sql } from "kysely";

// Frozen. Names and descriptions in Unicode's composed form (NFC), as the shop now keeps them and
// makes its searches: a name typed decomposed (`Rene\u0301e`) was found by no search for `Renée`.
// Only on a database whose encoding is UTF-8, the only one where PostgreSQL normalizes; the
// shop's texts are UTF-8 on any other only by accident.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    begin
      if current_setting('server_encoding') = 'UTF8' then
        update users set name = normalize(name, NFC) where name is not nfc normalized;
        update products set name = normalize(name, NFC), description = normalize(description, NFC)
          where name is not nfc normalized or description is not nfc normalized;
      end if;
    end $$`.execute(db);
}
