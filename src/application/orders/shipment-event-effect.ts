import { NO_ORIGIN } from "../../domain/audit.ts";
import { transition } from "../../domain/order.ts";
import { auditEvent } from "../events/audit-event.ts";
import type { Applied, EventDeps } from "../events/receive-webhook-event.ts";
import type { WebhookEffect, WebhookEvent } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";
import { applyToOrder } from "./apply-to-order.ts";

/**
 * A carrier's word on a parcel (decisions §11, EasyPost): `delivered` moves the SHIPPED order with
 * that tracking number to DELIVERED, through the domain's status table; any other status, or an
 * order no longer SHIPPED, is recorded only; so is a tracking number of no order of ours (not found).
 */
export async function shipmentEventEffect(tx: Repositories, deps: EventDeps, event: WebhookEvent, effect: Extract<WebhookEffect, { kind: "shipment" }>): Promise<Applied> {
  const orderId = await tx.orders.idOfTrackingNumber(effect.trackingCode);
  const order = orderId ? await tx.orders.lock(orderId) : null;
  if (!order) {
    await auditEvent(tx, deps, event, { type: "webhook", id: null }, { trackingCode: effect.trackingCode, carrierStatus: effect.status, found: false });
    return { outcome: "not_found" };
  }
  const delivered = effect.status === "delivered" && order.status === "SHIPPED";
  await applyToOrder(tx, deps, order, {
    changes: delivered ? { status: transition(order.status, "DELIVERED") } : {},
    restock: false,
    audit: {
      action: `webhook.${event.provider}`,
      userId: null,
      origin: NO_ORIGIN,
      changes: { eventId: event.eventId, type: event.type, trackingCode: effect.trackingCode, carrierStatus: effect.status, from: order.status, to: delivered ? "DELIVERED" : order.status },
    },
  });
  return { outcome: delivered ? "applied" : "unchanged" };
}
