import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type Problem, api, newIdempotencyKey, problemFrom, unwrap } from "../../api/client.ts";
import type { components } from "../../api/schema.d.ts";
import { Alert, Button, Loading, Money, SelectField, TextField, usePageTitle } from "../../shared/ui.tsx";
import { COUNTRIES, US_STATES } from "../address.ts";
import { useSession, useSignedIn } from "../session.tsx";

type Cart = components["schemas"]["Cart"];
type Address = { address1: string; address2: string; city: string; state: string; postalCode: string; country: string };

const EMPTY: Address = { address1: "", address2: "", city: "", state: "", postalCode: "", country: "US" };
const STATES: ReadonlyArray<readonly [string, string]> = [["", "Choose a state"], ...US_STATES];

/** The address form (US states, or a free state/province abroad); errors by the API's field names (`shippingAddress.city`). */
function AddressFields({ address, onChange, errors }: { address: Address; onChange: (next: Address) => void; errors: Record<string, string> }) {
  const set = (field: keyof Address) => (value: string) => onChange({ ...address, [field]: value, ...(field === "country" ? { state: "" } : {}) });
  const error = (field: keyof Address) => errors[`shippingAddress.${field}`];
  return (
    <fieldset>
      <legend>Shipping address</legend>
      <SelectField
        label="Country"
        name="country"
        autoComplete="country"
        value={address.country}
        onValue={set("country")}
        options={COUNTRIES}
        error={error("country")}
      />
      <TextField
        label="Street address"
        name="address1"
        autoComplete="address-line1"
        required
        value={address.address1}
        onValue={set("address1")}
        error={error("address1")}
      />
      <TextField
        label="Apartment, suite (optional)"
        name="address2"
        autoComplete="address-line2"
        value={address.address2}
        onValue={set("address2")}
        error={error("address2")}
      />
      <div class="form-row">
        <TextField label="City" name="city" autoComplete="address-level2" required value={address.city} onValue={set("city")} error={error("city")} />
        {address.country === "US" ? (
          <SelectField
            label="State"
            name="state"
            autoComplete="address-level1"
            required
            value={address.state}
            onValue={set("state")}
            options={STATES}
            error={error("state")}
          />
        ) : (
          <TextField
            label="State or province"
            name="state"
            autoComplete="address-level1"
            required
            value={address.state}
            onValue={set("state")}
            error={error("state")}
          />
        )}
        <TextField
          label={address.country === "US" ? "ZIP code" : "Postal code"}
          name="postalCode"
          autoComplete="postal-code"
          required
          value={address.postalCode}
          onValue={set("postalCode")}
          error={error("postalCode")}
        />
      </div>
    </fieldset>
  );
}

/** Whether the cart holds the same lines, quantities and prices as when the shopper was shown it. */
function sameCart(shown: Cart, now: Cart): boolean {
  const lines = new Map(now.items.map((item) => [item.id, item]));
  return (
    shown.items.length === now.items.length &&
    shown.items.every((item) => {
      const line = lines.get(item.id);
      return line !== undefined && line.quantity === item.quantity && line.product.price === item.product.price;
    })
  );
}

/**
 * Checkout: the shipping address, then the order is placed and the shopper goes on to pay it, where
 * the API's subtotal, shipping, tax and total are shown. What is placed is what the page showed:
 * the cart is read again first, and one changed meanwhile (in another tab) is shown again instead
 * of placed; the order names the lines shown (POST /api/orders with their ids), so a line added
 * after that read is not ordered unseen. One Idempotency-Key per attempt: a double submit gets the
 * same order back.
 */
export function Checkout() {
  usePageTitle("Checkout", "Storefront");
  const user = useSignedIn();
  const { route } = useLocation();
  const { refreshCart } = useSession();
  const [cart, setCart] = useState<Cart | null>(null);
  const [address, setAddress] = useState<Address>(EMPTY);
  const [notes, setNotes] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [changed, setChanged] = useState(false);
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState(() => newIdempotencyKey());

  useEffect(() => {
    if (!user) return;
    unwrap(api.GET("/api/cart"))
      .then(setCart)
      .catch((error: unknown) => setProblem(problemFrom(error)));
  }, [user]);

  async function submit(event: Event) {
    event.preventDefault();
    if (!cart) return;
    setBusy(true);
    setProblem(null);
    setChanged(false);
    const shippingAddress = {
      address1: address.address1.trim(),
      ...(address.address2.trim() ? { address2: address.address2.trim() } : {}),
      city: address.city.trim(),
      state: address.state.trim(),
      postalCode: address.postalCode.trim(),
      country: address.country,
    };
    try {
      const now = await unwrap(api.GET("/api/cart"));
      if (!sameCart(cart, now)) {
        setCart(now);
        setChanged(true);
        setBusy(false);
        return;
      }
      const placed = await unwrap(
        api.POST("/api/orders", {
          params: { header: { "Idempotency-Key": key } },
          body: { cartItemIds: now.items.map((item) => item.id), shippingAddress, ...(notes.trim() ? { notes: notes.trim() } : {}) },
        }),
      );
      await refreshCart();
      route(`/orders/${placed.orderId}/pay`);
    } catch (error) {
      const found = problemFrom(error);
      setProblem(found);
      // The key keeps its first answer, this refusal: the corrected order is another request. Unanswered, the same key retries safely.
      if (found.status !== 0) setKey(newIdempotencyKey());
      setBusy(false);
    }
  }

  if (!cart) return problem ? <Alert problem={problem} /> : <Loading />;
  if (cart.items.length === 0)
    return (
      <>
        <h1>Checkout</h1>
        <p>
          Your cart is empty. <a href="/">Find a sauce</a>.
        </p>
      </>
    );
  // A refusal that names only fields of this form is said beside them; any other above the form.
  const named = Object.keys(problem?.fields ?? {});
  const beside = named.length > 0 && named.every((field) => field.startsWith("shippingAddress.") || field === "notes");
  const unplaced = beside ? null : problem;
  return (
    <>
      <h1>Checkout</h1>
      <div class="two-columns">
        <form class="form form--wide" onSubmit={submit} noValidate aria-label="Shipping address and order">
          {changed && <Alert>Your cart changed since this page showed it (in another tab?): check your order, then place it.</Alert>}
          <Alert problem={unplaced}>
            {problem?.status === 409 && (
              <>
                {" "}
                <a href="/orders">See your orders</a>
              </>
            )}
          </Alert>
          <AddressFields address={address} onChange={setAddress} errors={problem?.fields ?? {}} />
          <TextField label="Notes for the shop (optional)" name="notes" value={notes} onValue={setNotes} error={problem?.fields.notes} />
          <div class="actions">
            <Button type="submit" busy={busy}>
              Place order
            </Button>
            <a href="/cart">Back to the cart</a>
          </div>
        </form>
        <aside class="panel" aria-label="Order summary">
          <h2>Your order</h2>
          <ul class="summary-lines">
            {cart.items.map((item) => (
              <li key={item.id}>
                <span>
                  {item.quantity} × <bdi>{item.product.name}</bdi>
                </span>
                <Money value={item.product.price * item.quantity} />
              </li>
            ))}
          </ul>
          <dl class="totals">
            <dt class="totals__total">Subtotal</dt>
            <dd class="totals__total">
              <Money value={cart.subtotal} />
            </dd>
          </dl>
          <p class="muted">Shipping and tax are worked out for your address when the order is placed; you see them before you pay.</p>
        </aside>
      </div>
    </>
  );
}
