import { z } from "zod";
import { toDollars } from "../../domain/money.ts";
import { ORDER_STATUSES, type OrderView, PAYMENT_STATUSES } from "../../domain/order.ts";
import { money, timestamp } from "./shapes.ts";

/** An order as the API shows it (spec: Order), and as `orders:list --json` prints it: money in dollars, times in ISO 8601. */

const addressSchema = z
  .object({
    address1: z.string(),
    address2: z.string().nullable(),
    city: z.string(),
    state: z.string(),
    postalCode: z.string(),
    country: z.string(),
  })
  .meta({ id: "Address" });

const orderItemSchema = z
  .object({
    id: z.string(),
    productId: z.string(),
    productName: z.string(),
    productSku: z.string(),
    productImage: z.string(),
    quantity: z.int(),
    unitPrice: money,
    totalPrice: money,
    product: z.object({ id: z.string(), name: z.string(), slug: z.string(), featuredImage: z.string(), heatLevel: z.int() }),
  })
  .meta({ id: "OrderItem" });

export const orderSchema = z
  .object({
    id: z.string(),
    orderNumber: z.string().describe("<PREFIX>-YYYYMMDD-XXXX"),
    status: z.enum(ORDER_STATUSES),
    paymentStatus: z.enum(PAYMENT_STATUSES),
    subtotal: money,
    shippingCost: money,
    tax: money,
    discountAmount: money,
    total: money,
    shippingMethod: z.string().describe("the shipping address as text, one line each"),
    trackingNumber: z.string().nullable(),
    customerNotes: z.string().nullable(),
    stripePaymentIntentId: z.string().nullable(),
    shippingAddress: addressSchema,
    billingAddress: addressSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
    items: z.array(orderItemSchema),
  })
  .meta({ id: "Order" });

export function presentOrder(o: OrderView): z.infer<typeof orderSchema> {
  return {
    id: o.id,
    orderNumber: o.orderNumber,
    status: o.status,
    paymentStatus: o.paymentStatus,
    subtotal: toDollars(o.subtotal),
    shippingCost: toDollars(o.shippingCost),
    tax: toDollars(o.tax),
    discountAmount: toDollars(o.discountAmount),
    total: toDollars(o.total),
    shippingMethod: o.shippingMethod,
    trackingNumber: o.trackingNumber,
    customerNotes: o.customerNotes,
    stripePaymentIntentId: o.stripePaymentIntentId,
    shippingAddress: o.shippingAddress,
    billingAddress: o.billingAddress,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    items: o.items.map((i) => ({ ...i, unitPrice: toDollars(i.unitPrice), totalPrice: toDollars(i.totalPrice) })),
  };
}
