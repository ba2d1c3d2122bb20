import { useCallback, useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type Problem, api, problemFrom, unwrap } from "../../api/client.ts";
import { formatDateTime, formatDollars } from "../../shared/format.ts";
import { Alert, Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { type Order, OrderTotals, StatusBadge, isPayable } from "../components.tsx";
import { useSignedIn } from "../session.tsx";

/** The shopper's orders, newest first. */
export function Orders() {
  usePageTitle("Your orders", "Storefront");
  const user = useSignedIn();
  const [orders, setOrders] = useState<Order[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  useEffect(() => {
    if (!user) return;
    unwrap(api.GET("/api/orders", { params: { query: { take: 100 } } }))
      .then(setOrders)
      .catch((error: unknown) => setProblem(problemFrom(error)));
  }, [user]);
  return (
    <>
      <h1>Your orders</h1>
      <Alert problem={problem} />
      {!orders && !problem && <Loading what="Loading your orders…" />}
      {orders && orders.length === 0 && (
        <p>
          No orders yet. <a href="/">Find a sauce</a>.
        </p>
      )}
      {orders && orders.length > 0 && (
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">Your orders</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Placed</th>
                <th scope="col">Status</th>
                <th scope="col" class="number">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {orders.map((order) => (
                <tr key={order.id}>
                  <td>
                    <a href={`/orders/${order.id}`}>{order.orderNumber}</a>
                  </td>
                  <td data-label="Placed">{formatDateTime(order.createdAt)}</td>
                  <td data-label="Status">
                    <StatusBadge status={order.status} /> <StatusBadge status={order.paymentStatus} label="Payment" />
                  </td>
                  <td class="number" data-label="Total">
                    {formatDollars(order.total)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** One order: its status, payment, tracking number, lines, sums and address; pay or cancel it while unpaid. */
export function OrderPage() {
  const user = useSignedIn();
  const { params } = useRoute();
  const { query } = useLocation();
  const id = params.id ?? "";
  const [order, setOrder] = useState<Order | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  usePageTitle(order ? `Order ${order.orderNumber}` : "Order", "Storefront");
  const read = useCallback(() => unwrap(api.GET("/api/orders/{id}", { params: { path: { id } } })), [id]);
  const load = useCallback(
    () =>
      read()
        .then(setOrder)
        .catch((error: unknown) => setProblem(problemFrom(error))),
    [read],
  );
  useEffect(() => {
    if (user) void load();
  }, [user, load]);
  // Asked whether to cancel, the focus goes to the harmless answer.
  useEffect(() => {
    if (confirmingCancel) document.getElementById("keep-order")?.focus();
  }, [confirmingCancel]);

  async function cancel() {
    setConfirmingCancel(false);
    setBusy(true);
    setProblem(null);
    try {
      await unwrap(api.POST("/api/orders/{id}/cancel", { params: { path: { id } } }));
      await load();
    } catch (error) {
      const refused = problemFrom(error);
      setProblem(refused);
      // Refused by the shop (paid or cancelled meanwhile, in another tab): the order as it is now,
      // with only what it still allows, beside the reason. Not reached, there is nothing newer to read.
      if (refused.status >= 400 && refused.status < 500)
        await read()
          .then(setOrder)
          .catch(() => {});
    } finally {
      setBusy(false);
    }
  }

  if (!order) return problem ? <Alert problem={problem} /> : <Loading />;
  return (
    <>
      <h1>Order {order.orderNumber}</h1>
      {query.paid && order.paymentStatus === "PAID" && (
        <p class="notice" role="status">
          Thank you! Your payment went through and your order is confirmed.
        </p>
      )}
      <Alert problem={problem} />
      <div class="two-columns">
        <div>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={order.status} />
            </dd>
            <dt>Payment</dt>
            <dd>
              <StatusBadge status={order.paymentStatus} />
            </dd>
            <dt>Tracking number</dt>
            <dd data-field="tracking">{order.trackingNumber ?? <span class="muted">Not shipped yet</span>}</dd>
            <dt>Placed</dt>
            <dd>{formatDateTime(order.createdAt)}</dd>
            <dt>Ships to</dt>
            <dd class="address">{order.shippingMethod}</dd>
          </dl>
          {isPayable(order) && (
            <div class="actions">
              <a class="button button--primary" href={`/orders/${order.id}/pay`}>
                Pay now
              </a>
              {!confirmingCancel && (
                <Button variant="secondary" onClick={() => setConfirmingCancel(true)} busy={busy}>
                  Cancel order
                </Button>
              )}
            </div>
          )}
          {isPayable(order) && confirmingCancel && (
            <fieldset class="confirm">
              <legend>Cancel this order? It cannot be paid afterwards; its sauces go back on the shelf.</legend>
              <div class="actions">
                <Button variant="secondary" onClick={cancel} busy={busy}>
                  Yes, cancel the order
                </Button>
                <Button variant="link" id="keep-order" onClick={() => setConfirmingCancel(false)}>
                  Keep the order
                </Button>
              </div>
            </fieldset>
          )}
        </div>
        <section class="panel" aria-labelledby="order-lines">
          <h2 id="order-lines">What you ordered</h2>
          <ul class="summary-lines">
            {order.items.map((item) => (
              <li key={item.id}>
                <span>
                  {item.quantity} ×{" "}
                  <a href={`/products/${item.product.slug}`}>
                    <bdi>{item.productName}</bdi>
                  </a>
                </span>
                <span>{formatDollars(item.totalPrice)}</span>
              </li>
            ))}
          </ul>
          <OrderTotals order={order} />
        </section>
      </div>
      <p>
        <a href="/orders">All your orders</a>
      </p>
    </>
  );
}
