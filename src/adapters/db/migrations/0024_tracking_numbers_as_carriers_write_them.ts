import { type Kysely, sql } from "kysely";

// Frozen. Tracking numbers as carriers write them (domain/order.ts, trackingKey): in Unicode's
// compatibility form (NFKC), without spaces, the letters a to z in capitals. Staff typed them as
// labels print them (`1Z 999 AA1 …`) or in small letters, and the carrier's webhook, naming
// `1Z999AA1…`, never found those orders; numbers kept before 2026-11-26 may hold fullwidth letters
// or a no-break space (NFKC makes those ASCII), and before 2026-11-23 a tab. Spelled out letter by
// letter, not with upper() or a class of spaces, whose meaning follows the database's locale; NFKC
// only on a database in UTF-8, the only one where PostgreSQL normalizes.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    begin
      if current_setting('server_encoding') = 'UTF8' then
        update orders set tracking_number = normalize(tracking_number, NFKC)
          where tracking_number is not null and tracking_number is not nfkc normalized;
      end if;
      update orders set tracking_number = translate(tracking_number, E'abcdefghijklmnopqrstuvwxyz \\t\\n\\r\\f\\v', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')
        where tracking_number ~ E'[a-z \\t\\n\\r\\f\\v]';
    end $$`.execute(db);
}
