/** An event a provider posted to one of our webhooks. */
export interface ReceivedEvent {
  provider: string;
  /** The provider's own id for the event: a redelivery carries the same. */
  eventId: string;
  type: string;
  receivedAt: Date;
}

/**
 * Events already handled, by provider and id (decisions §8). Recorded in the transaction of the
 * event's effect: the effect and its record land together, or neither does.
 */
export interface WebhookEventLog {
  /** Records the event; false, recording nothing, when it was recorded before (a redelivery). */
  record(event: ReceivedEvent): Promise<boolean>;
}

/** The five headers PayPal signs a delivery with. */
export interface PayPalTransmission {
  transmissionId: string;
  transmissionTime: string;
  transmissionSig: string;
  certUrl: string;
  authAlgo: string;
}

/**
 * PayPal's own check of a delivery (decisions §11: there is no offline one): its
 * verify-webhook-signature API, asked with the transmission headers, the webhook's id and the event.
 */
export interface PayPalSignatureCheck {
  verify(transmission: PayPalTransmission, webhookEvent: unknown): Promise<boolean>;
}
