import type { Migration, MigrationProvider } from "kysely/migration";
import * as m0001 from "./0001_initial.ts";
import * as m0002 from "./0002_default_role_permissions.ts";
import * as m0003 from "./0003_search_indexes.ts";
import * as m0004 from "./0004_sessions.ts";
import * as m0005 from "./0005_order_item_positions.ts";
import * as m0006 from "./0006_payments.ts";
import * as m0007 from "./0007_payment_in_flight.ts";
import * as m0008 from "./0008_event_providers.ts";
import * as m0009 from "./0009_paid_reference.ts";
import * as m0010 from "./0010_crash_recovery.ts";
import * as m0011 from "./0011_refunds.ts";
import * as m0012 from "./0012_fake_processor.ts";
import * as m0013 from "./0013_order_queue_indexes.ts";
import * as m0014 from "./0014_sales_report.ts";
import * as m0015 from "./0015_accounts_and_audit_indexes.ts";
import * as m0016 from "./0016_admin_product_indexes.ts";
import * as m0017 from "./0017_unpaid_orders_index.ts";
import * as m0018 from "./0018_outbox_failed_index.ts";
import * as m0019 from "./0019_stock_updates_touch_no_index.ts";
import * as m0020 from "./0020_order_units.ts";
import * as m0021 from "./0021_sales_periods.ts";
import * as m0022 from "./0022_product_rows_kept.ts";
import * as m0023 from "./0023_fake_processor_events.ts";
import * as m0024 from "./0024_tracking_numbers_as_carriers_write_them.ts";
import * as m0025 from "./0025_names_in_composed_form.ts";
import * as m0026 from "./0026_skus_as_the_shop_keeps_them.ts";
import * as m0027 from "./0027_intent_stops_due.ts";
import * as m0028 from "./0028_sessions_revoked_index.ts";
import * as m0029 from "./0029_outbox_pending_recipient_index.ts";

/** Migrations are listed here, not read from disk, so they work the same from source and from a bundle. */
const migrations: Record<string, Migration> = {
  "0001_initial": m0001,
  "0002_default_role_permissions": m0002,
  "0003_search_indexes": m0003,
  "0004_sessions": m0004,
  "0005_order_item_positions": m0005,
  "0006_payments": m0006,
  "0007_payment_in_flight": m0007,
  "0008_event_providers": m0008,
  "0009_paid_reference": m0009,
  "0010_crash_recovery": m0010,
  "0011_refunds": m0011,
  "0012_fake_processor": m0012,
  "0013_order_queue_indexes": m0013,
  "0014_sales_report": m0014,
  "0015_accounts_and_audit_indexes": m0015,
  "0016_admin_product_indexes": m0016,
  "0017_unpaid_orders_index": m0017,
  "0018_outbox_failed_index": m0018,
  "0019_stock_updates_touch_no_index": m0019,
  "0020_order_units": m0020,
  "0021_sales_periods": m0021,
  "0022_product_rows_kept": m0022,
  "0023_fake_processor_events": m0023,
  "0024_tracking_numbers_as_carriers_write_them": m0024,
  "0025_names_in_composed_form": m0025,
  "0026_skus_as_the_shop_keeps_them": m0026,
  "0027_intent_stops_due": m0027,
  "0028_sessions_revoked_index": m0028,
  "0029_outbox_pending_recipient_index": m0029,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
