import type { ColumnType, Generated, Selectable } from "kysely";

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  role: string;
  image: string | null;
  is_email_verified: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface UserIdentitiesTable {
  provider: string;
  provider_account_id: string;
  user_id: string;
  created_at: CreatedAt;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface FundraisersTable {
  id: string;
  user_id: string;
  name: string;
  created_at: CreatedAt;
}

export interface RolePermissionsTable {
  role: string;
  permission: string;
}

export interface ProductsTable {
  id: string;
  name: string;
  slug: string;
  description: string;
  price_cents: number;
  compare_at_price_cents: number | null;
  sku: string;
  featured_image: string;
  images: string[];
  heat_level: number;
  inventory: number;
  is_active: Generated<boolean>;
  is_featured: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface CartItemsTable {
  id: string;
  user_id: string;
  product_id: string;
  quantity: number;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface AddressColumn {
  address1: string;
  address2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface OrdersTable {
  id: string;
  order_number: string;
  user_id: string;
  status: string;
  payment_status: string;
  subtotal_cents: number;
  shipping_cents: number;
  tax_cents: number;
  discount_cents: number;
  total_cents: number;
  /**
   * The sum of its lines' quantities, for the sales report's index (written with the order; its lines
   * never change). Null on an order written by code from before migration 0020 (a rolling restart).
   */
  units: number | null;
  shipping_method: string;
  shipping_address: Json<AddressColumn>;
  billing_address: Json<AddressColumn>;
  tracking_number: string | null;
  customer_notes: string | null;
  stripe_payment_intent_id: string | null;
  payment_attempts: Generated<number>;
  payment_started_at: Date | null;
  paid_via: string | null;
  paid_reference: string | null;
  paid_at: Date | null;
  refunded_at: Date | null;
  /** Since when its Stripe intent is due to be cancelled, the order being paid through another provider (migration 0027); null when none is. */
  intent_stop_due_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OrderItemsTable {
  id: string;
  order_id: string;
  product_id: string;
  product_name: string;
  product_sku: string;
  product_image: string;
  quantity: number;
  unit_price_cents: number;
  total_price_cents: number;
  position: Generated<number>;
  /** A copy of the order's paid_at, for the sales report's index (written with it). */
  paid_at: Generated<Date | null>;
}

/** A settled period's sums, kept by the sales report (migration 0021); bigint sums read back as text. */
export interface SalesPeriodsTable {
  period_start: Date;
  period_end: Date;
  orders: number;
  units: string;
  subtotal_cents: string;
  discount_cents: string;
  shipping_cents: string;
  tax_cents: string;
  refunded_orders: number;
  refunded_subtotal_cents: string;
  refunded_discount_cents: string;
  refunded_shipping_cents: string;
  refunded_tax_cents: string;
}

/** One row: moved on by every history written with past times, which makes what was kept before it stale. */
export interface SalesPeriodsGenerationTable {
  generation: string;
}

/** What each product sold in a settled period, kept with it. */
export interface SalesPeriodProductsTable {
  period_start: Date;
  period_end: Date;
  product_id: string;
  units: string;
  revenue_cents: string;
}

export interface AuditLogTable {
  id: string;
  user_id: string | null;
  action: string;
  entity_type: string;
  entity_id: string | null;
  changes: Json<Record<string, unknown>>;
  ip_address: string | null;
  user_agent: string | null;
  created_at: CreatedAt;
}

export interface WebhookEventsTable {
  provider: string;
  event_id: string;
  type: string;
  received_at: CreatedAt;
}

export interface IdempotencyKeysTable {
  user_id: string;
  key: string;
  fingerprint: string;
  response_status: number | null;
  response_body: Json<unknown> | null;
  created_at: Date;
  expires_at: Date;
  /** The order a checkout's transaction made under the key: a replay answers it. */
  order_id: string | null;
}

export interface MailOutboxTable {
  id: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: CreatedAt;
  sent_at: Date | null;
  provider_message_id: string | null;
  delivered_at: Date | null;
}

export interface EmailSuppressionsTable {
  email: string;
  reason: string;
  created_at: Date;
}

export interface RefundsTable {
  id: string;
  order_id: string;
  intent_id: string;
  idempotency_key: string;
  reason: string;
  amount_cents: number;
  requested_at: Date;
  attempts: Generated<number>;
  next_attempt_at: Date;
  last_error: string | null;
  confirmed_at: Date | null;
  processor_refund_id: string | null;
}

export interface LocationsTable {
  id: string;
  name: string;
  address1: string;
  address2: string | null;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  latitude: number;
  longitude: number;
  phone: string | null;
  website: string | null;
  created_at: CreatedAt;
}

/** The built-in fake processor's books (its adapter owns their shape: an intent is kept whole, as JSON). */
export interface FakeProcessorIntentsTable {
  id: string;
  intent: Json<unknown>;
  created_at: CreatedAt;
}

export interface FakeProcessorEventsTable {
  id: string;
  intent: Json<unknown>;
  created_at: CreatedAt;
  failures: Generated<number>;
  due_at: Generated<Date>;
}

export interface FakeProcessorRefundsTable {
  id: string;
  intent_id: string;
  amount: number;
  created_at: CreatedAt;
}

export interface FakeProcessorReplaysTable {
  idempotency_key: string;
  answer: Json<unknown>;
  created_at: CreatedAt;
}

export interface Database {
  users: UsersTable;
  user_identities: UserIdentitiesTable;
  sessions: SessionsTable;
  fundraisers: FundraisersTable;
  role_permissions: RolePermissionsTable;
  products: ProductsTable;
  cart_items: CartItemsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  audit_log: AuditLogTable;
  webhook_events: WebhookEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  email_suppressions: EmailSuppressionsTable;
  mail_outbox: MailOutboxTable;
  locations: LocationsTable;
  refunds: RefundsTable;
  fake_processor_intents: FakeProcessorIntentsTable;
  fake_processor_events: FakeProcessorEventsTable;
  fake_processor_refunds: FakeProcessorRefundsTable;
  fake_processor_replays: FakeProcessorReplaysTable;
  sales_periods: SalesPeriodsTable;
  sales_period_products: SalesPeriodProductsTable;
  sales_periods_generation: SalesPeriodsGenerationTable;
}

export type ProductRow = Selectable<ProductsTable>;
export type LocationRow = Selectable<LocationsTable>;
