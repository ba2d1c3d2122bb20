import { useCallback, useEffect, useState } from "preact/hooks";
import { type Problem, api, problemFrom, unwrap } from "../../api/client.ts";
import type { components } from "../../api/schema.d.ts";
import { Alert, Button, Field, Loading, Money, usePageTitle } from "../../shared/ui.tsx";
import { Heat, ProductImage } from "../components.tsx";
import { useSession, useSignedIn } from "../session.tsx";

type Cart = components["schemas"]["Cart"];
type CartItem = components["schemas"]["CartItem"];

/**
 * One line: its quantity, changed on the spot (the API checks stock again), and a way to remove it.
 * Refused, the cart is read again too: it may have changed elsewhere (in another tab), and the page
 * shows it as it is; a line gone meanwhile hands its refusal to the page (`onGone`).
 */
function CartLine({ item, onChanged, onGone }: { item: CartItem; onChanged: () => Promise<Cart | null>; onGone: (problem: Problem) => void }) {
  const [quantity, setQuantity] = useState(String(item.quantity));
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setQuantity(String(item.quantity)), [item.quantity]);

  async function run(call: () => Promise<unknown>) {
    setBusy(true);
    setProblem(null);
    try {
      await call();
      await onChanged();
    } catch (error) {
      const refused = problemFrom(error);
      setProblem(refused);
      // Not reached, there is nothing newer to read.
      if (refused.status === 0) return;
      const now = await onChanged();
      if (now && !now.items.some((line) => line.id === item.id)) onGone(refused);
    } finally {
      setBusy(false);
    }
  }
  const update = () => {
    const count = Number.parseInt(quantity, 10);
    // Back to what the cart holds: nothing to send, and a refusal of another quantity says nothing of it.
    if (count === item.quantity) return setProblem(null);
    return run(() => unwrap(api.PUT("/api/cart/{id}", { params: { path: { id: item.id } }, body: { quantity: count } })));
  };
  const remove = () => run(() => unwrap(api.DELETE("/api/cart/{id}", { params: { path: { id: item.id } } })));

  return (
    <li class="panel cart-line">
      <ProductImage src={item.product.featuredImage} name={item.product.name} heat={item.product.heatLevel} />
      <div class="cart-line__about">
        <h2 class="cart-line__name">
          <a href={`/products/${item.product.slug}`}>
            <bdi>{item.product.name}</bdi>
          </a>
        </h2>
        <p class="muted">
          <Money value={item.product.price} /> each · <Heat level={item.product.heatLevel} />
        </p>
      </div>
      <form
        class="cart-line__quantity"
        onSubmit={(event) => {
          event.preventDefault();
          void update();
        }}
      >
        <Field
          label={
            <>
              Quantity of <bdi>{item.product.name}</bdi>
            </>
          }
          name="quantity"
          error={problem?.fields.quantity ?? problem?.message}
        >
          {(attributes) => (
            <input
              {...attributes}
              type="number"
              inputMode="numeric"
              min={1}
              max={item.product.inventory}
              required
              value={quantity}
              onInput={(event) => setQuantity(event.currentTarget.value)}
            />
          )}
        </Field>
        <div class="actions">
          <Button type="submit" variant="secondary" busy={busy} aria-label={`Update quantity: ${item.product.name}`}>
            Update quantity
          </Button>
          <Button variant="link" onClick={remove} disabled={busy} aria-label={`Remove: ${item.product.name}`}>
            Remove
          </Button>
        </div>
      </form>
      <p class="cart-line__total">
        <Money value={item.product.price * item.quantity} />
      </p>
    </li>
  );
}

/** The cart: its lines, their quantities, the subtotal, and the way to checkout. */
export function CartPage() {
  usePageTitle("Your cart", "Storefront");
  const user = useSignedIn();
  const { refreshCart } = useSession();
  const [cart, setCart] = useState<Cart | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [gone, setGone] = useState<Problem | null>(null);
  const load = useCallback(async (): Promise<Cart | null> => {
    let now: Cart | null = null;
    try {
      now = await unwrap(api.GET("/api/cart"));
      setCart(now);
      setProblem(null);
      setGone(null);
    } catch (error) {
      setProblem(problemFrom(error));
    }
    await refreshCart();
    return now;
  }, [refreshCart]);
  useEffect(() => {
    if (user) void load();
  }, [user, load]);

  return (
    <>
      <h1>Your cart</h1>
      <Alert problem={problem} />
      {gone && <Alert>{gone.message}: that line is no longer in your cart (removed in another tab?). This is your cart as it is now.</Alert>}
      {!cart && !problem && <Loading what="Loading your cart…" />}
      {cart && cart.items.length === 0 && (
        <p>
          Your cart is empty. <a href="/">Find a sauce</a>.
        </p>
      )}
      {cart && cart.items.length > 0 && (
        <div class="two-columns">
          <ul class="cart-lines">
            {cart.items.map((item) => (
              <CartLine key={item.id} item={item} onChanged={load} onGone={setGone} />
            ))}
          </ul>
          <aside class="panel" aria-label="Cart summary">
            <dl class="totals">
              <dt>Items</dt>
              <dd>{cart.totalQuantity}</dd>
              <dt class="totals__total">Subtotal</dt>
              <dd class="totals__total" data-total="cart-subtotal">
                <Money value={cart.subtotal} />
              </dd>
            </dl>
            <p class="muted">Shipping and tax are added at checkout, for your address.</p>
            <a class="button button--primary" href="/checkout">
              Checkout
            </a>
          </aside>
        </div>
      )}
    </>
  );
}
