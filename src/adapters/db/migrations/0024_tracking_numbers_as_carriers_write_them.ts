import { type Kysely, sql } from "kysely";

// Frozen. Tracking numbers as carriers write them (domain/order.ts, trackingKey): without spaces, in
// capitals. Staff typed them as labels print them (`1Z 999 AA1 …`) or in small letters, and the
// carrier's webhook, naming `1Z999AA1…`, never found those orders. The fullwidth forms were already
// folded (NFKC) as they were given.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update orders set tracking_number = upper(regexp_replace(tracking_number, '\\s+', '', 'g'))
    where tracking_number is not null and tracking_number <> upper(regexp_replace(tracking_number, '\\s+', '', 'g'))`.execute(db);
}
