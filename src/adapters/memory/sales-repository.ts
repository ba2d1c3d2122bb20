import type { SalesRepository } from "../../application/ports/sales.ts";
import { type Order, unitsOf } from "../../domain/order.ts";
import type { Product } from "../../domain/product.ts";
import type { RefundRecord } from "../../domain/refund.ts";
import type { PeriodRefunds, PeriodSales, ProductSales } from "../../domain/report.ts";
import type { User } from "../../domain/user.ts";

interface Tables {
  orders: Map<string, Order>;
  products: Map<string, Product>;
  users: Map<string, User>;
  refunds: Map<string, RefundRecord>;
}

/** The period an instant falls in, by the bounds (period i is [bounds[i], bounds[i + 1])); -1 outside them all. */
function periodOf(bounds: readonly Date[], at: Date | null): number {
  if (!at) return -1;
  const t = at.getTime();
  for (let i = 0; i + 1 < bounds.length; i++) if (t >= bounds[i]!.getTime() && t < bounds[i + 1]!.getTime()) return i;
  return -1;
}

export function createMemorySalesRepository({ orders, products, users, refunds }: Tables): SalesRepository {
  return {
    async salesIn(bounds, top) {
      const sold = new Map<number, PeriodSales>();
      const refunded = new Map<number, PeriodRefunds>();
      const byProduct = new Map<string, ProductSales>();
      for (const o of orders.values()) {
        const paid = periodOf(bounds, o.paidAt);
        if (paid >= 0) {
          const s = sold.get(paid) ?? { period: paid, orders: 0, units: 0, subtotal: 0, discount: 0, shipping: 0, tax: 0 };
          sold.set(paid, {
            ...s,
            orders: s.orders + 1,
            units: s.units + unitsOf(o),
            subtotal: s.subtotal + o.subtotal,
            discount: s.discount + o.discountAmount,
            shipping: s.shipping + o.shippingCost,
            tax: s.tax + o.tax,
          });
          for (const item of o.items) {
            const product = products.get(item.productId);
            const p = byProduct.get(item.productId) ?? {
              productId: item.productId,
              name: product?.name ?? item.productName,
              sku: product?.sku ?? item.productSku,
              units: 0,
              revenue: 0,
            };
            byProduct.set(item.productId, { ...p, units: p.units + item.quantity, revenue: p.revenue + item.totalPrice });
          }
        }
        const refund = o.paidAt ? periodOf(bounds, o.refundedAt) : -1;
        if (refund >= 0) {
          const r = refunded.get(refund) ?? { period: refund, subtotal: 0, discount: 0, shipping: 0, tax: 0 };
          refunded.set(refund, {
            ...r,
            subtotal: r.subtotal + o.subtotal,
            discount: r.discount + o.discountAmount,
            shipping: r.shipping + o.shippingCost,
            tax: r.tax + o.tax,
          });
        }
      }
      const byPeriod = (a: { period: number }, b: { period: number }) => a.period - b.period;
      return {
        sold: [...sold.values()].sort(byPeriod),
        refunded: [...refunded.values()].sort(byPeriod),
        topProducts: [...byProduct.values()]
          .sort((a, b) => b.units - a.units || b.revenue - a.revenue || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0))
          .slice(0, top),
      };
    },

    async importHistory(batch) {
      const emails = new Set([...users.values()].map((u) => u.email));
      for (const customer of batch.customers) {
        if (users.has(customer.id) || emails.has(customer.email)) continue;
        users.set(customer.id, structuredClone(customer));
        emails.add(customer.email);
      }
      const numbers = new Set([...orders.values()].map((o) => o.orderNumber));
      const written = new Set<string>();
      for (const order of batch.orders) {
        if (orders.has(order.id) || numbers.has(order.orderNumber)) continue;
        orders.set(order.id, structuredClone(order));
        numbers.add(order.orderNumber);
        written.add(order.id);
      }
      for (const refund of batch.refunds) if (written.has(refund.orderId)) refunds.set(refund.id, structuredClone(refund));
      return written.size;
    },
  };
}
