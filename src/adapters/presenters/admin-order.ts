import { z } from "zod";
import type { AuditEntry } from "../../domain/audit.ts";
import { toDollars } from "../../domain/money.ts";
import { ORDER_STATUSES, movesOf } from "../../domain/order.ts";
import { PERMISSIONS } from "../../domain/permissions.ts";
import type { RefundRecord } from "../../domain/refund.ts";
import { ORDER_HISTORY_SHOWN, type OrderDetail } from "../../application/admin/order-detail.ts";
import type { QueuedOrder } from "../../application/ports/orders.ts";
import { orderSchema, presentOrder } from "./order.ts";
import { money, timestamp } from "./shapes.ts";

/** Orders as the back office shows them (decisions §12): the Order of GET /api/orders/:id, and more. */

export const customerSchema = z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }).meta({ id: "OrderCustomer" });

export const adminOrderSchema = orderSchema
  .extend({ customer: customerSchema, itemCount: z.int().describe("distinct lines, as the cart counts them") })
  .meta({ id: "AdminOrder" });

const refundSchema = z
  .object({
    id: z.string(),
    reason: z
      .enum(["order_ended", "late_payment"])
      .describe("order_ended: staff cancelled or refunded a paid order; late_payment: money came for an order that no longer needed it"),
    amount: money,
    state: z.enum(["due", "made"]).describe("due: asked of the processor and retried by housekeeping until it answers; made: the processor confirmed it"),
    requestedAt: timestamp,
    attempts: z.int(),
    lastError: z.string().nullable().describe("why the last attempt failed, while it is due"),
    madeAt: timestamp.nullable(),
    processorRefundId: z.string().nullable(),
  })
  .meta({ id: "OrderRefund" });

const paymentSchema = z
  .object({
    provider: z.string().nullable().describe("who took the money (stripe, square, paypal); null until paid"),
    intentId: z.string().nullable().describe("the order's payment intent at the processor"),
    attempts: z.int().describe("payment attempts made"),
    attemptStartedAt: timestamp.nullable().describe("when the attempt still waiting on the processor began; null when none is"),
    paidReference: z.string().nullable().describe("the provider's id of the payment that paid it"),
    refunds: z.array(refundSchema).describe("due or made, oldest first"),
  })
  .meta({ id: "OrderPaymentFacts" });

const historyEntrySchema = z
  .object({
    id: z.string(),
    action: z.string().describe("order.*, payment.* or webhook.<provider>"),
    userId: z.string().nullable().describe("who did it; null for the system, the CLI or a provider"),
    changes: z.record(z.string(), z.unknown()),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: "OrderHistoryEntry" });

const moveSchema = z
  .object({
    status: z.enum(ORDER_STATUSES),
    permissions: z.array(z.enum(PERMISSIONS)).describe("what the move needs: orders:write, and financials:refunds when it refunds"),
    refunds: z.boolean().describe("it ends a paid order, whose payment is refunded (or flagged due through the provider that took it)"),
    needsTrackingNumber: z.boolean().describe("SHIPPED needs a trackingNumber; no other move takes one"),
  })
  .meta({ id: "OrderMove" });

export const adminOrderDetailSchema = adminOrderSchema
  .extend({
    payment: paymentSchema,
    history: z.array(historyEntrySchema).describe(`the latest ${ORDER_HISTORY_SHOWN} audit entries about the order, oldest first`),
    historyTotal: z.int().describe("how many entries the order has in all; the audit log (GET /api/admin/audit, entityId) has every one"),
    moves: z
      .array(moveSchema)
      .describe("the moves the status table allows from the order's status (PUT /api/orders/{id}/status), whoever asks; none once it has ended"),
  })
  .meta({ id: "AdminOrderDetail" });

export function presentAdminOrder(order: QueuedOrder): z.infer<typeof adminOrderSchema> {
  return { ...presentOrder(order), customer: order.customer, itemCount: order.items.length };
}

const presentRefund = (r: RefundRecord): z.infer<typeof refundSchema> => ({
  id: r.id,
  reason: r.reason,
  amount: toDollars(r.amount),
  state: r.confirmedAt === null ? "due" : "made",
  requestedAt: r.requestedAt.toISOString(),
  attempts: r.attempts,
  lastError: r.lastError,
  madeAt: r.confirmedAt?.toISOString() ?? null,
  processorRefundId: r.processorRefundId,
});

const presentEntry = (e: AuditEntry): z.infer<typeof historyEntrySchema> => ({
  id: e.id,
  action: e.action,
  userId: e.userId,
  changes: e.changes,
  ipAddress: e.ipAddress,
  userAgent: e.userAgent,
  createdAt: e.createdAt.toISOString(),
});

export function presentOrderDetail({ order, refunds, history, historyTotal }: OrderDetail): z.infer<typeof adminOrderDetailSchema> {
  return {
    ...presentAdminOrder(order),
    payment: {
      provider: order.paidVia,
      intentId: order.stripePaymentIntentId,
      attempts: order.paymentAttempts,
      attemptStartedAt: order.paymentStartedAt?.toISOString() ?? null,
      paidReference: order.paidReference,
      refunds: refunds.map(presentRefund),
    },
    history: history.map(presentEntry),
    historyTotal,
    moves: movesOf(order),
  };
}
