import type { AccountFilter } from "../domain/account.ts";
import { NO_ORIGIN, type RequestOrigin } from "../domain/audit.ts";
import type { LocationQuery, NearbyQuery } from "../domain/location.ts";
import type { OrderStatus } from "../domain/order.ts";
import type { PageRequest } from "../domain/paging.ts";
import type { Actor, Permission } from "../domain/permissions.ts";
import { DEFAULT_LOW_STOCK_THRESHOLD, type InventoryAdjustment, type ProductQuery } from "../domain/product.ts";
import type { UserRole } from "../domain/user.ts";
import { type ProductRef, adjustInventory } from "./admin/adjust-inventory.ts";
import { type AdminProductFilter, listAdminProducts } from "./admin/list-products.ts";
import { exportUsers } from "./admin/export-users.ts";
import { everyUser, getUser, listUsers } from "./admin/list-users.ts";
import { type AuditSearch, readAuditLog } from "./admin/read-audit-log.ts";
import type { ReportRange } from "../domain/report.ts";
import { exportSalesReport, getSalesReport } from "./admin/sales-report.ts";
import { exportOrders } from "./admin/export-orders.ts";
import { listOrderQueue } from "./admin/list-orders.ts";
import { getOrderDetail } from "./admin/order-detail.ts";
import { ACCESS_CACHE_MS, createAccessResolver } from "./auth/access.ts";
import { type Registration, register } from "./auth/register.ts";
import { signInWithPassword } from "./auth/sign-in-with-password.ts";
import { beginProviderSignIn, configured, finishProviderSignIn } from "./auth/provider-sign-in.ts";
import { signOut } from "./auth/sign-out.ts";
import { addToCart } from "./cart/add-to-cart.ts";
import { removeCartItem, updateCartItem } from "./cart/change-cart-item.ts";
import { getCart } from "./cart/get-cart.ts";
import { getProduct } from "./catalog/get-product.ts";
import { listProducts } from "./catalog/list-products.ts";
import { type NewProduct, type ProductPatch, createProduct, deleteProduct, updateProduct } from "./catalog/manage-products.ts";
import { type DemoCatalog, seedDemoCatalog, seedDemoCatalogIfEmpty } from "./catalog/seed-demo-catalog.ts";
import { type DemoOrdersRequest, seedDemoOrders } from "./catalog/seed-demo-orders.ts";
import { claimIdempotencyKey, keepIdempotentResponse, releaseIdempotencyKey } from "./idempotency/idempotency-keys.ts";
import { DEFAULT_RATE_LIMIT, PASSWORD_ROUTES, type RateLimitPolicy, takeRequest } from "./limits/rate-limit.ts";
import { findNearbyLocations } from "./locations/find-nearby-locations.ts";
import { receiveWebhookEvent } from "./events/receive-webhook-event.ts";
import type { WebhookEvent } from "./events/webhook-event.ts";
import type { HeldKey, KeptResponse } from "./ports/idempotency.ts";
import { cancelOrder } from "./orders/cancel-order.ts";
import { type OrderRef, type StatusChange, changeOrderStatus } from "./orders/change-order-status.ts";
import { expireUnpaidOrders } from "./orders/expire-unpaid-orders.ts";
import { type OrderRequest, placeOrder } from "./orders/place-order.ts";
import { everyOrder, getOrder, listOrders } from "./orders/read-orders.ts";
import { DEFAULT_ORDER_SETTINGS, type OrderSettings } from "./orders/settings.ts";
import { type PaymentRequest, createPaymentLine, payOrder } from "./payments/pay-order.ts";
import type { OrderFilter, OrderQueueFilter } from "./ports/orders.ts";
import { listLocations } from "./locations/list-locations.ts";
import { grantPermission, listPermissions, revokePermission } from "./permissions/manage-permissions.ts";
import type { Deps } from "./ports/index.ts";
import { checkHealth, checkReadiness } from "./system/check-health.ts";
import { observeUseCases } from "./system/observe.ts";
import { type NewAccount, type UserRef, createUser, ensureAdmin, setUserRole } from "./users/admin-users.ts";
import { changePassword } from "./users/change-password.ts";
import { getProfile } from "./users/get-profile.ts";
import { type ProfileChanges, updateProfile } from "./users/update-profile.ts";

export interface UseCaseOptions {
  /** The shop's public address, for links in mail. */
  publicUrl: string;
  orders?: OrderSettings;
  /** Decisions §1's defaults when absent. */
  rateLimit?: RateLimitPolicy;
  /** How long sessions, accounts and permissions read are trusted (decisions §5: at most 30 s, the default). */
  sessionCacheSeconds?: number;
  /** LOW_STOCK_THRESHOLD: the back office's low stock; DEFAULT_LOW_STOCK_THRESHOLD when absent. */
  lowStockThreshold?: number;
  /** SHOP_TIMEZONE: the sales report's zone; UTC when absent. */
  shopTimeZone?: string;
}

/** Every use case bound to its dependencies: what HTTP routes and CLI commands call; those whose outcomes are counted tell deps.metrics. */
export function makeUseCases(deps: Deps, options: UseCaseOptions) {
  const access = createAccessResolver(deps, (options.sessionCacheSeconds ?? ACCESS_CACHE_MS / 1000) * 1000);
  const orders = options.orders ?? DEFAULT_ORDER_SETTINGS;
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const reports = { timeZone: options.shopTimeZone ?? "UTC" };
  const paymentLine = createPaymentLine();
  const useCases = {
    listProducts: (query: ProductQuery) => listProducts(deps, query),
    getProduct: (idOrSlug: string) => getProduct(deps, idOrSlug),
    createProduct: (actor: Actor, input: NewProduct, origin: RequestOrigin) => createProduct(deps, actor, input, origin),
    updateProduct: (actor: Actor, id: string, patch: ProductPatch, origin: RequestOrigin) => updateProduct(deps, actor, id, patch, origin),
    deleteProduct: (actor: Actor, id: string, origin: RequestOrigin) => deleteProduct(deps, actor, id, origin),
    seedDemoCatalog: (catalog: DemoCatalog) => seedDemoCatalog(deps, catalog),
    seedDemoCatalogIfEmpty: (catalog: DemoCatalog) => seedDemoCatalogIfEmpty(deps, catalog),
    seedDemoOrders: (request: DemoOrdersRequest) => seedDemoOrders(deps, { numberPrefix: orders.numberPrefix }, request),

    listAdminProducts: (actor: Actor, filter: AdminProductFilter) =>
      listAdminProducts(deps, actor, filter, options.lowStockThreshold ?? DEFAULT_LOW_STOCK_THRESHOLD),
    adjustInventory: (actor: Actor, ref: ProductRef, input: InventoryAdjustment, origin: RequestOrigin) => adjustInventory(deps, actor, ref, input, origin),

    getCart: (userId: string) => getCart(deps, userId),
    addToCart: (userId: string, input: { productId: string; quantity: number }, origin: RequestOrigin) => addToCart(deps, userId, input, origin),
    updateCartItem: (userId: string, itemId: string, quantity: number, origin: RequestOrigin) => updateCartItem(deps, userId, itemId, quantity, origin),
    removeCartItem: (userId: string, itemId: string, origin: RequestOrigin) => removeCartItem(deps, userId, itemId, origin),

    placeOrder: (userId: string, request: OrderRequest, origin: RequestOrigin, key: HeldKey | null = null) =>
      placeOrder(deps, orders, userId, request, origin, key),
    listOrders: (actor: Actor, filter: Omit<OrderFilter, "userId">) => listOrders(deps, actor, filter),
    everyOrder: (actor: Actor, status?: OrderStatus) => everyOrder(deps, actor, status),
    getOrder: (actor: Actor, id: string) => getOrder(deps, actor, id),
    changeOrderStatus: (actor: Actor, ref: OrderRef, change: StatusChange, origin: RequestOrigin) => changeOrderStatus(deps, actor, ref, change, origin),
    cancelOrder: (userId: string, orderId: string, origin: RequestOrigin) => cancelOrder(deps, userId, orderId, origin),
    expireUnpaidOrders: () => expireUnpaidOrders(deps, orders.paymentTtlMinutes),
    payOrder: (userId: string, request: PaymentRequest, origin: RequestOrigin) => payOrder(deps, userId, request, origin, orders.graceMs, paymentLine),
    receiveWebhookEvent: (event: WebhookEvent) => receiveWebhookEvent(deps, event),

    listOrderQueue: (actor: Actor, filter: OrderQueueFilter, page: PageRequest) => listOrderQueue(deps, actor, filter, page),
    getOrderDetail: (actor: Actor, id: string) => getOrderDetail(deps, actor, id),
    exportOrders: (actor: Actor, filter: OrderQueueFilter, origin: RequestOrigin) => exportOrders(deps, actor, filter, origin),

    claimIdempotencyKey: (userId: string, key: string, fingerprint: string) => claimIdempotencyKey(deps, userId, key, fingerprint),
    keepIdempotentResponse: (userId: string, key: string, claimedAt: Date, response: KeptResponse) =>
      keepIdempotentResponse(deps, userId, key, claimedAt, response),
    releaseIdempotencyKey: (userId: string, key: string, claimedAt: Date) => releaseIdempotencyKey(deps, userId, key, claimedAt),

    listLocations: (query: LocationQuery) => listLocations(deps, query),
    findNearbyLocations: (query: NearbyQuery) => findNearbyLocations(deps, query),
    checkHealth: () => checkHealth(deps),
    checkReadiness: () => checkReadiness(deps),
    rateLimit,
    takeRequest: (client: string, endpoint: string) => takeRequest(deps, rateLimit, client, endpoint),
    takePasswordRequest: (client: string) => takeRequest(deps, { max: rateLimit.passwordMax, windowSeconds: rateLimit.windowSeconds }, client, PASSWORD_ROUTES),

    resolveSession: access.resolve,
    register: (input: Registration, origin: RequestOrigin, client?: string) => register(deps, input, origin, options.publicUrl, client),
    signInWithPassword: (input: { email: string; password: string }, origin: RequestOrigin, client?: string) => signInWithPassword(deps, input, origin, client),
    beginProviderSignIn: (providerId: string) => beginProviderSignIn(deps, providerId),
    async finishProviderSignIn(input: Parameters<typeof finishProviderSignIn>[1], origin: RequestOrigin) {
      const session = await finishProviderSignIn(deps, input, origin);
      // A takeover ended the account's other sessions: this instance must stop trusting them now, not in 30 s.
      access.forgetUser(session.user.id);
      return session;
    },
    async signOut(session: { id: string; userId: string }, everywhere: boolean, origin: RequestOrigin) {
      const result = await signOut(deps, session, everywhere, origin);
      if (everywhere) access.forgetUser(session.userId);
      else access.forgetSession(session.id);
      return result;
    },
    identityProviders: deps.identityProviders,
    identityProvider: (providerId: string) => configured(deps, providerId),

    getProfile: (userId: string) => getProfile(deps, userId),
    async updateProfile(userId: string, changes: ProfileChanges, origin: RequestOrigin) {
      const user = await updateProfile(deps, userId, changes, origin);
      access.forgetUser(userId);
      return user;
    },
    async changePassword(userId: string, input: { currentPassword: string; newPassword: string }, origin: RequestOrigin, client?: string) {
      const result = await changePassword(deps, userId, input, origin, client);
      access.forgetUser(userId);
      return result;
    },
    createUser: (actor: Actor, input: NewAccount) => createUser(deps, actor, input),
    async setUserRole(actor: Actor, ref: UserRef, role: UserRole, origin: RequestOrigin = NO_ORIGIN) {
      const user = await setUserRole(deps, actor, ref, role, origin);
      // This instance applies the new role at once; the others within their cache's 30 s (decisions §5).
      access.forgetUser(user.id);
      return user;
    },
    ensureAdmin: (actor: Actor, account: { email: string; password: string }) => ensureAdmin(deps, actor, account),

    listUsers: (actor: Actor, filter: AccountFilter, page: PageRequest) => listUsers(deps, actor, filter, page),
    everyUser: (actor: Actor, filter: AccountFilter) => everyUser(deps, actor, filter),
    getUser: (actor: Actor, id: string) => getUser(deps, actor, id),
    exportUsers: (actor: Actor, filter: AccountFilter, origin: RequestOrigin) => exportUsers(deps, actor, filter, origin),
    readAuditLog: (actor: Actor, search: AuditSearch, page: PageRequest) => readAuditLog(deps, actor, search, page),
    getSalesReport: (actor: Actor, range: ReportRange) => getSalesReport(deps, reports, actor, range),
    exportSalesReport: (actor: Actor, range: ReportRange, origin: RequestOrigin) => exportSalesReport(deps, reports, actor, range, origin),

    listPermissions: (actor: Actor, role?: UserRole) => listPermissions(deps, actor, role),
    async grantPermission(actor: Actor, role: UserRole, permission: Permission) {
      const changed = await grantPermission(deps, actor, role, permission);
      access.forgetPermissions();
      return changed;
    },
    async revokePermission(actor: Actor, role: UserRole, permission: Permission) {
      const changed = await revokePermission(deps, actor, role, permission);
      access.forgetPermissions();
      return changed;
    },
  };
  return observeUseCases(useCases, deps.metrics);
}

export type UseCases = ReturnType<typeof makeUseCases>;
