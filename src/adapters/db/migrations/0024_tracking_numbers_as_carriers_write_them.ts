import { type Kysely, sql } from "kysely";

// Frozen. Tracking numbers as carriers write them (domain/order.ts, trackingKey): without spaces,
// the letters a to z in capitals. Staff typed them as labels print them (`1Z 999 AA1 …`) or in small
// letters, and the carrier's webhook, naming `1Z999AA1…`, never found those orders. The fullwidth
// forms and other spaces were already folded (NFKC) as they were given, and control characters
// refused, so a plain space is the only one there. Spelled out letter by letter, not with upper()
// or a class of spaces, whose meaning follows the database's locale (the space, last and with no
// capital beside it, is taken out).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update orders set tracking_number = translate(tracking_number, 'abcdefghijklmnopqrstuvwxyz ', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')
    where tracking_number is not null and tracking_number ~ '[ a-z]'`.execute(db);
}
