import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type Problem, api, problemFrom, unwrap } from "../../api/client.ts";
import type { components } from "../../api/schema.d.ts";
import { formatDollars } from "../../shared/format.ts";
import { Alert, Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { AddressOnOneLine, type Order, OrderTotals, StatusBadge, isPayable } from "../components.tsx";
import { useSignedIn } from "../session.tsx";
import { type Stripe, type StripeElements, loadStripe } from "../stripe.ts";

type Methods = components["schemas"]["PaymentMethods"];
type Payment = components["schemas"]["Payment"];

const RESULT_HINTS: Record<Methods["testMethods"][number]["result"], string> = {
  succeeds: "the payment goes through",
  declined: "the bank declines it",
  "3-D Secure": "the bank asks you to confirm",
};

/** Stripe's Payment Element, mounted for the order's amount; it gives a payment method id to pay with. */
function useStripeElement(methods: Methods | null, order: Order | null, target: HTMLElement | null) {
  const [stripe, setStripe] = useState<{ stripe: Stripe; elements: StripeElements } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const amount = order ? Math.round(order.total * 100) : 0;
  useEffect(() => {
    if (methods?.processor !== "stripe" || !target || amount === 0) return;
    if (!methods.publishableKey) return setProblem("This shop takes cards through Stripe, but its publishable key is not set: it cannot take a card here yet.");
    let element: { destroy(): void } | undefined;
    // Left (another order, another page) before Stripe.js answered: nothing is mounted for a page gone.
    let left = false;
    loadStripe(methods.publishableKey)
      .then((loaded) => {
        if (left) return;
        const elements = loaded.elements({ mode: "payment", amount, currency: "usd", paymentMethodCreation: "manual" });
        const payment = elements.create("payment");
        payment.mount(target);
        element = payment;
        setStripe({ stripe: loaded, elements });
      })
      .catch((error: Error) => left || setProblem(error.message));
    return () => {
      left = true;
      element?.destroy();
    };
  }, [methods, amount, target]);
  return { stripe, problem };
}

/**
 * Paying an order: its lines and the API's sums, then the payment. On the built-in fake processor
 * its test methods are offered by name; 3-D Secure goes through the fake's challenge page and back
 * to the order. With Stripe, the Payment Element. A declined card is said at the payment field, and
 * the order stays payable.
 */
export function PayPage() {
  const user = useSignedIn();
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id ?? "";
  const [order, setOrder] = useState<Order | null>(null);
  const [methods, setMethods] = useState<Methods | null>(null);
  const [method, setMethod] = useState("pm_card_visa");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [declined, setDeclined] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [target, setTarget] = useState<HTMLElement | null>(null);
  const stripeHost = useRef<HTMLDivElement>(null);
  const { stripe, problem: stripeProblem } = useStripeElement(methods, order, target);
  usePageTitle(order ? `Pay for order ${order.orderNumber}` : "Payment", "Storefront");

  useEffect(() => {
    if (!user) return;
    Promise.all([unwrap(api.GET("/api/orders/{id}", { params: { path: { id } } })), unwrap(api.GET("/api/payment/methods"))])
      .then(([loaded, offered]) => {
        setOrder(loaded);
        setMethods(offered);
      })
      .catch((error: unknown) => setProblem(problemFrom(error)));
  }, [user, id]);
  useEffect(() => setTarget(stripeHost.current), [methods]);

  async function paymentMethodId(): Promise<string | null> {
    if (methods?.processor !== "stripe") return method;
    if (!stripe) return null;
    const submitted = await stripe.elements.submit();
    if (submitted.error) throw new Error(submitted.error.message ?? "Check the card details.");
    const created = await stripe.stripe.createPaymentMethod({ elements: stripe.elements });
    if (!created.paymentMethod) throw new Error(created.error?.message ?? "The card could not be used.");
    return created.paymentMethod.id;
  }

  async function afterPayment(payment: Payment) {
    const orderPage = `/orders/${id}`;
    if (payment.success) return route(`${orderPage}?paid=1`);
    const redirect = payment.paymentIntent.nextAction?.redirectUrl;
    if (payment.paymentIntent.status === "requires_action" && redirect) {
      // The fake processor's challenge page plays the bank, then links back to the order.
      return location.assign(`${redirect}?return=${encodeURIComponent(orderPage)}`);
    }
    if (payment.paymentIntent.status === "requires_action" && stripe) {
      const action = await stripe.stripe.handleNextAction({ clientSecret: payment.paymentIntent.clientSecret });
      if (action.error) throw new Error(action.error.message ?? "The bank did not confirm the payment.");
    }
    route(orderPage);
  }

  async function pay(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    setDeclined(null);
    try {
      const paymentMethod = await paymentMethodId();
      if (!paymentMethod) return;
      const payment = await unwrap(api.POST("/api/payment", { body: { orderId: id, paymentMethodId: paymentMethod } }));
      await afterPayment(payment);
    } catch (error) {
      const found = problemFrom(error);
      if (found.status === 402) setDeclined(found.message);
      else setProblem(found);
      // The order as it is now: a decline failed its payment; a refusal may mean it was paid or
      // cancelled meanwhile (another tab), and then the page offers no card to pay it with.
      if (found.status !== 0) setOrder(await unwrap(api.GET("/api/orders/{id}", { params: { path: { id } } })).catch(() => order));
    } finally {
      setBusy(false);
    }
  }

  if (!order) return problem ? <Alert problem={problem} /> : <Loading />;
  const payable = isPayable(order);
  const fieldError = declined ?? problem?.fields.paymentMethodId ?? stripeProblem;
  return (
    <>
      <h1>Pay for order {order.orderNumber}</h1>
      <div class="two-columns">
        <div>
          {!payable && (
            <p class="notice">
              This order cannot be paid now: it is <StatusBadge status={order.status} />, payment <StatusBadge status={order.paymentStatus} />.{" "}
              <a href={`/orders/${order.id}`}>See the order</a>
            </p>
          )}
          {payable && methods && (
            <form class="form form--wide" onSubmit={pay} noValidate aria-label="Payment">
              <Alert problem={problem && !problem.fields.paymentMethodId ? problem : null} />
              <fieldset class={fieldError ? "field--invalid" : ""} aria-describedby={fieldError ? "payment-error" : undefined}>
                <legend>{methods.processor === "fake" ? "Test card" : "Card"}</legend>
                {methods.processor === "fake" && (
                  <>
                    <p class="field__hint">This shop runs on its built-in test processor: choose a test card. No money moves.</p>
                    {methods.testMethods.map((test) => (
                      <label key={test.id} class="choice">
                        <input type="radio" name="paymentMethodId" value={test.id} checked={method === test.id} onChange={() => setMethod(test.id)} />
                        <span>
                          {test.name} <span class="muted">({RESULT_HINTS[test.result]})</span>
                        </span>
                      </label>
                    ))}
                  </>
                )}
                {methods.processor === "stripe" && <div ref={stripeHost} class="stripe-element" />}
                {fieldError && (
                  <p class="field__error" id="payment-error" role="alert">
                    {fieldError}
                  </p>
                )}
              </fieldset>
              <div class="actions">
                <Button type="submit" busy={busy} disabled={methods.processor === "stripe" && !stripe}>
                  Pay {formatDollars(order.total)}
                </Button>
                <a href={`/orders/${order.id}`}>Pay later</a>
              </div>
            </form>
          )}
        </div>
        <aside class="panel" aria-label="Order summary">
          <h2>Order {order.orderNumber}</h2>
          <ul class="summary-lines">
            {order.items.map((item) => (
              <li key={item.id}>
                <span>
                  {item.quantity} × <bdi>{item.productName}</bdi>
                </span>
                <span>{formatDollars(item.totalPrice)}</span>
              </li>
            ))}
          </ul>
          <OrderTotals order={order} />
          <p class="muted">
            Ships to: <AddressOnOneLine address={order.shippingMethod} />
          </p>
        </aside>
      </div>
    </>
  );
}
