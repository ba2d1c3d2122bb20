import { NO_ORIGIN } from "../../domain/audit.ts";
import { transition } from "../../domain/order.ts";
import { auditEvent } from "../events/audit-event.ts";
import type { Applied, EventDeps } from "../events/receive-webhook-event.ts";
import type { WebhookEffect, WebhookEvent } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";
import { applyToOrder } from "./apply-to-order.ts";

/**
 * A carrier's word on a parcel (decisions §11, EasyPost): `delivered` moves each SHIPPED order with
 * that tracking number (orders sent in one parcel share it) to DELIVERED, through the domain's
 * status table; any other status, or an order no longer SHIPPED, is recorded only; so is a
 * tracking number of no order of ours (not found). The orders are locked in id order.
 */
export async function shipmentEventEffect(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  effect: Extract<WebhookEffect, { kind: "shipment" }>,
): Promise<Applied> {
  const said = { trackingCode: effect.trackingCode, carrierStatus: effect.status };
  const ids = await tx.orders.idsOfTrackingNumber(effect.trackingCode);
  if (ids.length === 0) {
    await auditEvent(tx, deps, event, { type: "webhook", id: null }, { ...said, found: false });
    return { outcome: "not_found" };
  }
  let delivered = 0;
  for (const id of ids) {
    const order = (await tx.orders.lock(id))!;
    const delivers = effect.status === "delivered" && order.status === "SHIPPED";
    await applyToOrder(tx, deps, order, {
      changes: delivers ? { status: transition(order.status, "DELIVERED") } : {},
      restock: false,
      audit: {
        action: `webhook.${event.provider}`,
        userId: null,
        origin: NO_ORIGIN,
        changes: { eventId: event.eventId, type: event.type, ...said, from: order.status, to: delivers ? "DELIVERED" : order.status },
      },
    });
    delivered += Number(delivers);
  }
  return { outcome: delivered > 0 ? "applied" : "unchanged" };
}
