import { type Kysely, sql } from "kysely";

// Frozen. A product is never deleted (decisions §2: DELETE is a soft delete, and order items keep
// their copied data), so the foreign keys from cart and order lines to products guarded against
// nothing the shop does, and they cost every sale of a popular product: checking a reference takes
// a share lock on the product's row (FOR KEY SHARE), so a product being added to carts and ordered
// by many shoppers at once has its row locked by many transactions together (a multixact), which
// each checkout's stock update must then wait through and resolve. Measured with bench:hot-sku (one
// product, two instances): 252 and 286 checkouts/s with the keys, 347 and 409 without; PostgreSQL's
// CPU a checkout 4.36 and 3.95 ms, then 3.07 and 2.42.
// What the keys promised stays true: a trigger refuses to delete (or truncate) a product or to
// change its id, so no cart or order line can lose its product.
// Dropping a key locks the three tables whole. Waiting for that behind a long reader (a report, a
// dump) would queue every catalog read behind the migration; it gives up after a few seconds
// instead, changing nothing, and db:migrate can be run again. The timeout is this migration's
// alone: the migrations of one run share a transaction, and those after it get theirs back.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`set local lock_timeout = '3s'`.execute(db);
  await sql`alter table cart_items drop constraint cart_items_product_id_fkey`.execute(db);
  await sql`alter table order_items drop constraint order_items_product_id_fkey`.execute(db);
  await sql`
    create function products_kept() returns trigger language plpgsql as $$
    begin
      raise exception 'products are never deleted nor their ids changed: cart and order lines refer to them (set is_active = false instead)'
        using errcode = 'restrict_violation';
    end $$`.execute(db);
  await sql`create trigger products_never_deleted before delete on products for each row execute function products_kept()`.execute(db);
  await sql`create trigger products_never_truncated before truncate on products for each statement execute function products_kept()`.execute(db);
  await sql`create trigger products_id_kept before update of id on products for each row when (new.id is distinct from old.id) execute function products_kept()`.execute(
    db,
  );
  await sql`set local lock_timeout to default`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger products_id_kept on products`.execute(db);
  await sql`drop trigger products_never_truncated on products`.execute(db);
  await sql`drop trigger products_never_deleted on products`.execute(db);
  await sql`drop function products_kept()`.execute(db);
  // A cart line whose product was deleted by hand (its trigger disabled) is thrown away; an order
  // line's is kept, and the key's creation then fails naming it.
  await sql`delete from cart_items where not exists (select 1 from products where products.id = cart_items.product_id)`.execute(db);
  await sql`alter table order_items add constraint order_items_product_id_fkey foreign key (product_id) references products (id)`.execute(db);
  await sql`alter table cart_items add constraint cart_items_product_id_fkey foreign key (product_id) references products (id) on delete cascade`.execute(db);
}
