import { type Kysely, sql } from "kysely";

// Frozen. SKUs as the shop now keeps them and looks them up (domain/product.ts, skuOf): in Unicode's
// compatibility form (NFKC), then trimmed of what JavaScript's trim() takes off. A SKU kept before
// 2026-11-27 was only trimmed, so one typed `ＨＡＢ-1` could no longer be found by itself (the
// lookup now folds what staff type), and `HAB-1` could be made beside it (found by a review). Two
// SKUs that become one stop the migration, naming both, for staff to rename one: neither can be
// given the other's. Only on a database in UTF-8, the only one where PostgreSQL normalizes. Its
// Unicode tables may be older than JavaScript's: a SKU holding a character only the newer folds
// (PostgreSQL 15: 99 code points, such as letters drawn outlined) is left as it was.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    declare
      clash text[];
    begin
      if current_setting('server_encoding') <> 'UTF8' then
        return;
      end if;
      create temporary table sku_folded on commit drop as
        select id, sku, btrim(normalize(sku, NFKC), E' \\t\\n\\x0b\\f\\r\\u1680\\u2028\\u2029\\ufeff') as folded from products;
      select array_agg(sku order by sku) into clash from sku_folded
        where folded in (select folded from sku_folded group by folded having count(*) > 1);
      if clash is not null then
        raise exception 'these SKUs are one once written as the shop keeps them (NFKC, trimmed): %; rename all but one of each, then migrate again', array_to_string(clash, ', ')
          using errcode = '23505';
      end if;
      update products set sku = f.folded from sku_folded f where f.id = products.id and products.sku <> f.folded;
    end $$`.execute(db);
}
