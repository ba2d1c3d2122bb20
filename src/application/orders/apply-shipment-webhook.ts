import { type OrderStatus, trackingKey, transition } from "../../domain/order.ts";
import { recordAudit } from "../audit.ts";
import { type Applied, type EventDeps, type WebhookEvent, type WebhookMeaning, webhookAudit } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";
import { applyToOrder } from "./apply-to-order.ts";

/**
 * A carrier's word on a parcel (decisions §11, EasyPost): `delivered` moves each SHIPPED order with
 * that tracking number (orders sent in one parcel share it) to DELIVERED, through the domain's
 * status table; any other status, or an order no longer SHIPPED, is recorded only, with why it
 * changed nothing (`ignored`); so is a tracking number of no order of ours (not found). The orders
 * are locked in id order.
 */
export async function applyShipmentWebhook(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  meaning: Extract<WebhookMeaning, { kind: "shipment" }>,
): Promise<Applied> {
  const said = { trackingCode: meaning.trackingCode, carrierStatus: meaning.status };
  // As the shop keeps its numbers, whatever the carrier's spacing or case.
  const ids = await tx.orders.idsOfTrackingNumber(trackingKey(meaning.trackingCode));
  if (ids.length === 0) {
    await recordAudit(tx, deps, { ...webhookAudit(event, { ...said, found: false }), entityType: "webhook", entityId: null });
    return { outcome: "not_found" };
  }
  let delivered = 0;
  for (const id of ids) {
    const order = (await tx.orders.lock(id))!;
    const ignored = whyUnchanged(meaning.status, order.status);
    await applyToOrder(tx, deps, order, {
      changes: ignored ? {} : { status: transition(order.status, "DELIVERED") },
      restock: false,
      audit: webhookAudit(event, { ...said, from: order.status, to: ignored ? order.status : "DELIVERED", ...(ignored ? { ignored } : {}) }),
    });
    const delivers = ignored === null;
    delivered += Number(delivers);
  }
  return { outcome: delivered > 0 ? "applied" : "unchanged" };
}

/** Why a carrier's status leaves an order as it is; null when it delivers it. */
function whyUnchanged(carrierStatus: string, orderStatus: OrderStatus): string | null {
  if (carrierStatus !== "delivered") return "only delivered moves an order";
  if (orderStatus !== "SHIPPED") return `the order is ${orderStatus}, not SHIPPED`;
  return null;
}
