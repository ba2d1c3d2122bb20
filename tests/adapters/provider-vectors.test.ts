import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { easypostWebhookVerifier } from "../../src/adapters/events/easypost.ts";
import { squareWebhookVerifier } from "../../src/adapters/events/square.ts";
import vectors from "../support/provider-vectors.json";

// Deliveries the providers themselves publish, signed by them: the hand-written HMAC checks must
// agree with the providers' own SDK fixtures, not only with this project's idea of the scheme.
const bytes = (text: string) => new TextEncoder().encode(text);
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "verified",
    (error: { message: string }) => error.message,
  );

describe("EasyPost's published signed event (EasyPost/examples fixtures)", () => {
  const { secret, signature, body } = vectors.easypost;

  test("verifies with the secret NFKD-normalized, and reads the tracker", async () => {
    const event = await easypostWebhookVerifier(secret)!(bytes(body), new Headers({ "x-hmac-signature": signature }));
    expect(event).toEqual({
      provider: "easypost",
      eventId: "evt_1",
      type: "tracker.updated",
      meaning: { kind: "shipment", trackingCode: "1", status: "in_transit" },
    });
  });

  test("the signature is the normalized secret's: keyed with the secret as typed, it would differ; another body or secret is refused", async () => {
    expect(`hmac-sha256-hex=${createHmac("sha256", secret).update(body).digest("hex")}`).not.toBe(signature);
    expect(await refusal(easypostWebhookVerifier(secret)!(bytes(`${body}\n`), new Headers({ "x-hmac-signature": signature })))).toBe("Invalid signature");
    expect(await refusal(easypostWebhookVerifier("secret")!(bytes(body), new Headers({ "x-hmac-signature": signature })))).toBe("Invalid signature");
  });
});

describe("Square's published signed notification (square-nodejs-sdk tests)", () => {
  const { signatureKey, notificationUrl, signature, body } = vectors.square;

  test("verifies against its notification URL; a test notification is not acted on", async () => {
    const event = await squareWebhookVerifier(signatureKey, notificationUrl)!(bytes(body), new Headers({ "x-square-hmacsha256-signature": signature }));
    expect(event).toEqual({ provider: "square", eventId: "ac3ac95b-f97d-458c-a6e6-18981597e05f", type: "webhooks.test_notification", meaning: null });
  });

  test("another notification URL, key or body is refused", async () => {
    const headers = new Headers({ "x-square-hmacsha256-signature": signature });
    expect(await refusal(squareWebhookVerifier(signatureKey, "https://webhook.site/79a4f3a-dcfa-49ee-bac5-9d0edad886b9")!(bytes(body), headers))).toBe(
      "Invalid signature",
    );
    expect(await refusal(squareWebhookVerifier("MCmhFRxGX82xMwg5FsaoQA", notificationUrl)!(bytes(body), headers))).toBe("Invalid signature");
    expect(await refusal(squareWebhookVerifier(signatureKey, notificationUrl)!(bytes(body.replace("2022-07-13", "2022-06-13")), headers))).toBe(
      "Invalid signature",
    );
  });
});
