/**
 * Stripe.js, loaded from Stripe only when the shop's payments go through Stripe (decisions §13: the
 * one outside script; the CSP allows Stripe's hosts only then). Typed as far as this page uses it.
 */
export interface StripeElement {
  mount(target: HTMLElement): void;
  destroy(): void;
}
export interface StripeElements {
  create(type: "payment"): StripeElement;
  submit(): Promise<{ error?: { message?: string } }>;
}
export interface Stripe {
  elements(options: { mode: "payment"; amount: number; currency: string; paymentMethodCreation: "manual" }): StripeElements;
  createPaymentMethod(options: { elements: StripeElements }): Promise<{ paymentMethod?: { id: string }; error?: { message?: string } }>;
  handleNextAction(options: { clientSecret: string }): Promise<{ error?: { message?: string } }>;
}

declare global {
  interface Window {
    Stripe?: (publishableKey: string) => Stripe;
  }
}

let loading: Promise<Stripe> | undefined;

export function loadStripe(publishableKey: string): Promise<Stripe> {
  loading ??= new Promise<Stripe>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "https://js.stripe.com/v3/";
    script.onload = () => (window.Stripe ? resolve(window.Stripe(publishableKey)) : reject(new Error("Stripe.js did not start")));
    script.onerror = () => {
      loading = undefined;
      reject(new Error("Stripe.js could not be loaded. Check your connection and try again."));
    };
    document.head.append(script);
  });
  return loading;
}
