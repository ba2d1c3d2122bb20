import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type Problem, api, problemFrom, unwrap } from "../api/client.ts";
import type { components } from "../api/schema.d.ts";
import { humanize } from "../shared/format.ts";
import { Button, Money } from "../shared/ui.tsx";
import { signInPath, useSession } from "./session.tsx";

export type Order = components["schemas"]["Order"];

/**
 * A product's picture when the shop serves it; a drawn label otherwise. The CSP lets a page load
 * images from the shop alone, and the demo catalog's pictures live on another host.
 */
export function ProductImage({ src, name, heat }: { src: string; name: string; heat: number }) {
  if (servedHere(src)) return <img class="product-image" src={src} alt="" loading="lazy" />;
  const initials = name
    .split(/\s+/)
    .slice(0, 2)
    .map((word) => word.charAt(0))
    .join("");
  return (
    <div class={`product-image product-image--drawn heat-${heat}`} aria-hidden="true">
      <span>{initials}</span>
    </div>
  );
}

/** Whether an address is on this shop's origin. (`new URL`, not `URL.parse`: Safari before 18 has no `URL.parse`.) */
function servedHere(src: string): boolean {
  try {
    return new URL(src, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/**
 * An address the API writes one line a line, on one line: its lines apart, each isolated, so a
 * right-to-left mark a customer typed in one turns that line around, never the ZIP code beside it.
 */
export function AddressOnOneLine({ address }: { address: string }) {
  return (
    <>
      {address.split("\n").map((line, i) => (
        <Fragment key={i}>
          {i > 0 && ", "}
          <bdi>{line}</bdi>
        </Fragment>
      ))}
    </>
  );
}

/** A heat level 0–5, in words and as a meter. */
export function Heat({ level }: { level: number }) {
  return (
    <span class="heat">
      <span class="heat__meter" aria-hidden="true">
        {[1, 2, 3, 4, 5].map((step) => (
          <span key={step} class={step <= level ? "heat__dot heat__dot--on" : "heat__dot"} />
        ))}
      </span>
      {level === 0 ? "No heat" : `Heat ${level} of 5`}
    </span>
  );
}

/** A price, and the former one struck through when it is on sale. */
export function Price({ price, compareAtPrice }: { price: number; compareAtPrice: number | null }) {
  return (
    <span class="price">
      <Money value={price} />
      {compareAtPrice !== null && compareAtPrice > price && (
        <>
          {" "}
          <s class="muted">
            <span class="visually-hidden">was </span>
            <Money value={compareAtPrice} />
          </s>
        </>
      )}
    </span>
  );
}

/** An order's sums as the API computed them. */
export function OrderTotals({ order }: { order: Pick<Order, "subtotal" | "shippingCost" | "tax" | "discountAmount" | "total"> }) {
  return (
    <dl class="totals" aria-label="Order totals">
      <dt>Subtotal</dt>
      <dd data-total="subtotal">
        <Money value={order.subtotal} />
      </dd>
      <dt>Shipping</dt>
      <dd data-total="shipping">{order.shippingCost === 0 ? "Free" : <Money value={order.shippingCost} />}</dd>
      <dt>Tax</dt>
      <dd data-total="tax">
        <Money value={order.tax} />
      </dd>
      {order.discountAmount > 0 && (
        <>
          <dt>Discount</dt>
          <dd data-total="discount">
            −<Money value={order.discountAmount} />
          </dd>
        </>
      )}
      <dt class="totals__total">Total</dt>
      <dd class="totals__total" data-total="total">
        <Money value={order.total} />
      </dd>
    </dl>
  );
}

const GOOD = new Set(["CONFIRMED", "PROCESSING", "SHIPPED", "DELIVERED", "PAID"]);
const BAD = new Set(["CANCELLED", "REFUNDED", "FAILED"]);

/** An order or payment status as a badge. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const tone = GOOD.has(status) ? " badge--ok" : BAD.has(status) ? " badge--bad" : "";
  return (
    <span class={`badge${tone}`} data-status={status}>
      {label ? `${label}: ` : ""}
      {humanize(status)}
    </span>
  );
}

/** An order the customer can still pay (decisions §4). */
export const isPayable = (order: Pick<Order, "status" | "paymentStatus">) =>
  order.status === "PENDING" && (order.paymentStatus === "PENDING" || order.paymentStatus === "FAILED");

/** Adds a product to the cart; a signed-out shopper is sent to sign in first, and back. */
export function AddToCart({ productId, name, quantity = 1, disabled }: { productId: string; name: string; quantity?: number; disabled?: boolean }) {
  const { user, refreshCart } = useSession();
  const { url, route } = useLocation();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  async function add() {
    if (!user) return route(signInPath(url));
    setBusy(true);
    setProblem(null);
    try {
      await unwrap(api.POST("/api/cart", { body: { productId, quantity } }));
      setDone(true);
      await refreshCart();
    } catch (error) {
      setProblem(problemFrom(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div class="add-to-cart">
      <Button onClick={add} busy={busy} disabled={disabled} aria-label={`Add to cart: ${name}`}>
        Add to cart
      </Button>
      <p class="add-to-cart__status" role="status">
        {done && !problem && "Added to your cart."}
      </p>
      {problem && (
        <p class="field__error" role="alert">
          {problem.message}
        </p>
      )}
    </div>
  );
}
