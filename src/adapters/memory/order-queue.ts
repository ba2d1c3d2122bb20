import type { Order } from "../../domain/order.ts";
import type { User } from "../../domain/user.ts";
import type { OrderQueueFilter } from "../../application/ports/orders.ts";

const contains = (text: string | null | undefined, part: string) => text?.toLowerCase().includes(part) ?? false;

/** Whether an order and its customer pass every filter given, as the PostgreSQL adapter's conditions say. */
export function inQueue(order: Order, customer: User | undefined, f: OrderQueueFilter): boolean {
  if (f.statuses?.length && !f.statuses.includes(order.status)) return false;
  if (f.paymentStatuses?.length && !f.paymentStatuses.includes(order.paymentStatus)) return false;
  if (f.from && order.createdAt < f.from) return false;
  if (f.to && order.createdAt >= f.to) return false;
  if (f.customerId && order.userId !== f.customerId) return false;
  if (f.q === undefined) return true;
  const q = f.q.normalize("NFC").toLowerCase();
  return contains(order.orderNumber, q) || contains(customer?.email, q) || contains(customer?.name, q);
}
