import type { ExportedLine } from "../../application/ports/orders.ts";
import type { CsvCell } from "./csv.ts";

/** The orders export's columns (decisions §12): one row per order line; the order's own money is on each of its lines. */
export const ORDER_CSV_HEADER = [
  "orderNumber",
  "createdAt",
  "updatedAt",
  "status",
  "paymentStatus",
  "customerId",
  "customerEmail",
  "customerName",
  "shippingAddress1",
  "shippingAddress2",
  "shippingCity",
  "shippingState",
  "shippingPostalCode",
  "shippingCountry",
  "trackingNumber",
  "productSku",
  "productName",
  "quantity",
  "unitPrice",
  "lineTotal",
  "orderSubtotal",
  "orderShipping",
  "orderTax",
  "orderDiscount",
  "orderTotal",
] as const;

export function orderCsvRow({ order, customer, item }: ExportedLine): CsvCell[] {
  const address = order.shippingAddress;
  return [
    order.orderNumber,
    order.createdAt,
    order.updatedAt,
    order.status,
    order.paymentStatus,
    customer.id,
    customer.email,
    customer.name,
    address.address1,
    address.address2 ?? null,
    address.city,
    address.state,
    address.postalCode,
    address.country,
    order.trackingNumber,
    item.productSku,
    item.productName,
    item.quantity,
    { cents: item.unitPrice },
    { cents: item.totalPrice },
    { cents: order.subtotal },
    { cents: order.shippingCost },
    { cents: order.tax },
    { cents: order.discountAmount },
    { cents: order.total },
  ];
}
