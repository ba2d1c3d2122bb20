import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { type Problem, type Schemas, api, localProblem, run } from "../api.ts";
import { Input, Notice, ProblemNote, TableWrap } from "../components/ui.tsx";
import { label, money, when } from "../format.ts";
import { useLoad } from "../load.ts";
import { SITE, useProblemSetter, useSession } from "../session.ts";
import { StatusBadge } from "./orders.tsx";

type Order = Schemas["AdminOrderDetail"];
type Move = Schemas["OrderMove"];

/**
 * One order (GET /api/admin/orders/:id). Another order's address (back and forward between two)
 * draws its page anew: never the last order's facts, moves or notice under it while it loads.
 */
export function OrderPage({ id }: { id: string }) {
  return <OrderView key={id} id={id} />;
}

/** What the order holds, its payment, its history, and the moves the caller may make. */
function OrderView({ id }: { id: string }) {
  const loaded = useLoad(() => run(api.GET("/api/admin/orders/{id}", { params: { path: { id } } })), id);
  const [done, setDone] = useState<string | null>(null);
  usePageTitle(loaded.state === "ok" ? `Order ${loaded.data.data.orderNumber}` : "Order", SITE);
  const heading = (
    <>
      <p class="crumbs">
        <a href="/admin/orders">Orders</a>
      </p>
      <h1>{loaded.state === "ok" ? `Order ${loaded.data.data.orderNumber}` : "Order"}</h1>
    </>
  );
  // The heading is drawn from the start, so the focus a page change gives it stays on it once the order is read.
  if (loaded.state !== "ok") {
    return (
      <section>
        {heading}
        {loaded.state === "loading" ? <Loading what="Loading the order…" /> : <ProblemNote problem={loaded.problem} />}
      </section>
    );
  }
  const order = loaded.data.data;
  return (
    <section>
      {heading}
      {done && <Notice>{done}</Notice>}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={order.status} />
        </dd>
        <dt>Payment</dt>
        <dd>{label(order.paymentStatus)}</dd>
        <dt>Placed</dt>
        <dd>{when(order.createdAt)}</dd>
        <dt>Customer</dt>
        <dd>
          <bdi>{order.customer.name ?? "—"}</bdi> (<bdi>{order.customer.email}</bdi>) ·{" "}
          <a href={`/admin/orders?customerId=${order.customer.id}`}>their orders</a>
        </dd>
        <dt>Tracking number</dt>
        <dd>{order.trackingNumber ?? "—"}</dd>
        <dt>Ships to</dt>
        <dd class="address">{order.shippingMethod}</dd>
        {order.customerNotes && (
          <>
            <dt>Customer's note</dt>
            <dd>{order.customerNotes}</dd>
          </>
        )}
      </dl>
      <Moves
        order={order}
        onMoved={async (text) => {
          await loaded.reload();
          setDone(text);
        }}
        onRefused={() => loaded.reload()}
      />
      <h2>Lines</h2>
      <TableWrap label="Order lines">
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">SKU</th>
              <th scope="col" class="number">
                Quantity
              </th>
              <th scope="col" class="number">
                Unit price
              </th>
              <th scope="col" class="number">
                Line total
              </th>
            </tr>
          </thead>
          <tbody>
            {order.items.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <bdi>{item.productName}</bdi>
                </th>
                <td data-label="SKU">{item.productSku}</td>
                <td class="number" data-label="Quantity">
                  {item.quantity}
                </td>
                <td class="number" data-label="Unit price">
                  {money(item.unitPrice)}
                </td>
                <td class="number" data-label="Line total">
                  {money(item.totalPrice)}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <Sum label="Subtotal" amount={order.subtotal} />
            <Sum label="Shipping" amount={order.shippingCost} />
            <Sum label="Tax" amount={order.tax} />
            {order.discountAmount > 0 && <Sum label="Discount" amount={-order.discountAmount} />}
            <Sum label="Total" amount={order.total} />
          </tfoot>
        </table>
      </TableWrap>
      <Payment payment={order.payment} />
      <History id={order.id} customerId={order.customer.id} history={order.history} total={order.historyTotal} />
    </section>
  );
}

function Sum({ label: text, amount }: { label: string; amount: number }) {
  return (
    <tr>
      <th scope="row" colSpan={4}>
        {text}
      </th>
      <td class="number">{money(amount)}</td>
    </tr>
  );
}

const MOVE_LABELS: Record<Move["status"], string> = {
  PENDING: "Back to pending",
  CONFIRMED: "Confirm",
  PROCESSING: "Start processing",
  SHIPPED: "Ship",
  DELIVERED: "Mark delivered",
  CANCELLED: "Cancel the order",
  REFUNDED: "Mark refunded",
};

function moveLabel(move: Move): string {
  if (move.refunds) return move.status === "CANCELLED" ? "Cancel and refund" : "Refund";
  return MOVE_LABELS[move.status];
}

/**
 * The moves the status table allows from here (the order's `moves`), drawn only when the caller
 * holds every permission a move needs: STAFF without financials:refunds sees no refund. Shipping
 * asks for the tracking number; ending the order (a refund above all) asks to confirm first.
 */
function Moves({ order, onMoved, onRefused }: { order: Order; onMoved: (text: string) => Promise<void>; onRefused: () => Promise<void> }) {
  const session = useSession();
  const [problem, showProblem] = useState<Problem | null>(null);
  const setProblem = useProblemSetter(showProblem);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<Move | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const moves = order.moves.filter((move) => move.permissions.every((permission) => session.can(permission)));
  // Opened once its content is drawn, so the dialog's autofocus (the harmless choice) takes the focus.
  useEffect(() => {
    if (confirming && !dialog.current?.open) dialog.current?.showModal();
  }, [confirming]);
  if (moves.length === 0) return null;

  async function move(to: Move, trackingNumber?: string) {
    setProblem(null);
    setBusy(true);
    const outcome = await run(
      api.PUT("/api/orders/{id}/status", {
        params: { path: { id: order.id } },
        body: trackingNumber ? { status: to.status, trackingNumber } : { status: to.status },
      }),
    );
    setBusy(false);
    dialog.current?.close();
    setConfirming(null);
    if (!outcome.ok) {
      setProblem(outcome.problem);
      // Refused by the shop (moved meanwhile by someone else, say): the order as it is now, with only
      // the moves it still allows, beside the reason. Not reached, there is nothing newer to read.
      if (outcome.problem.status >= 400 && outcome.problem.status < 500) await onRefused();
      return;
    }
    setProblem(null);
    // Ended, a paid order's refund not made yet (the processor refused or was away) leaves its payment PAID.
    const ended = outcome.data.status === "CANCELLED" || outcome.data.status === "REFUNDED";
    const refundDue =
      ended && outcome.data.paymentStatus === "PAID"
        ? " The processor has not made the refund yet: it is due, and housekeeping asks again a minute after each try."
        : "";
    await onMoved(`The order is now ${label(outcome.data.status)}; payment ${label(outcome.data.paymentStatus)}.${refundDue}`);
  }

  function ship(event: Event, to: Move) {
    event.preventDefault();
    const trackingNumber = String(new FormData(event.currentTarget as HTMLFormElement).get("trackingNumber") ?? "").trim();
    if (!trackingNumber) {
      return setProblem(localProblem("A tracking number is needed to ship an order.", { trackingNumber: "Enter the carrier's tracking number" }));
    }
    void move(to, trackingNumber);
  }

  return (
    <section class="moves" aria-labelledby="moves-title">
      <h2 id="moves-title">Move this order</h2>
      <ProblemNote problem={problem} fields={["trackingNumber"]} />
      <div class="move-list">
        {moves.map((to) =>
          to.needsTrackingNumber ? (
            <form key={to.status} class="ship" onSubmit={(event) => ship(event, to)} noValidate>
              <Input name="trackingNumber" label="Tracking number" required maxLength={100} error={problem?.fields.trackingNumber} />
              <Button type="submit" busy={busy}>
                {moveLabel(to)}
              </Button>
            </form>
          ) : (
            <Button
              key={to.status}
              variant={to.refunds ? "danger" : "primary"}
              busy={busy}
              onClick={() => (to.refunds || to.status === "CANCELLED" ? setConfirming(to) : void move(to))}
            >
              {moveLabel(to)}
            </Button>
          ),
        )}
      </div>
      <dialog ref={dialog} aria-labelledby="confirm-title" onClose={() => setConfirming(null)}>
        {confirming && (
          <form method="dialog">
            <h2 id="confirm-title">{moveLabel(confirming)}?</h2>
            <p>
              {confirming.refunds ? (
                <>
                  {money(order.total)} goes back to <bdi>{order.customer.email}</bdi>, and the order ends {label(confirming.status)}. This cannot be undone.
                </>
              ) : (
                `The order ends ${label(confirming.status)}. This cannot be undone.`
              )}
            </p>
            <div class="actions">
              <Button variant="danger" busy={busy} onClick={() => void move(confirming)}>
                {confirming.refunds ? `Yes, refund ${money(order.total)}` : "Yes, cancel it"}
              </Button>
              <Button type="submit" variant="secondary" autoFocus>
                Keep the order as it is
              </Button>
            </div>
          </form>
        )}
      </dialog>
    </section>
  );
}

function Payment({ payment }: { payment: Order["payment"] }) {
  return (
    <section aria-labelledby="payment-title">
      <h2 id="payment-title">Payment</h2>
      <dl class="facts">
        <dt>Taken by</dt>
        <dd>{payment.provider ?? "not paid"}</dd>
        <dt>Payment intent</dt>
        <dd>{payment.intentId ?? "—"}</dd>
        <dt>Attempts</dt>
        <dd>{payment.attempts}</dd>
        {payment.attemptStartedAt && (
          <>
            <dt>Waiting on the processor since</dt>
            <dd>{when(payment.attemptStartedAt)}</dd>
          </>
        )}
        <dt>Paid by</dt>
        <dd>{payment.paidReference ?? "—"}</dd>
      </dl>
      {payment.refunds.length > 0 && (
        <TableWrap label="Refunds">
          <table>
            <caption>Refunds</caption>
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col">Why</th>
                <th scope="col" class="number">
                  Amount
                </th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {payment.refunds.map((refund) => (
                <tr key={refund.id}>
                  <td>{when(refund.requestedAt)}</td>
                  <td>{refund.reason === "order_ended" ? "Order ended by staff" : "Paid after it ended"}</td>
                  <td class="number">{money(refund.amount)}</td>
                  <td>
                    {refund.state === "made"
                      ? `Made ${when(refund.madeAt)}`
                      : `Due after ${refund.attempts} attempt${refund.attempts === 1 ? "" : "s"}${refund.lastError ? `: ${refund.lastError}` : ""}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

/**
 * A changes object in a line: `from: PENDING, to: CONFIRMED`. Each value isolated (`<bdi>`): one
 * typed by someone (a reason, a tracking number, a name) in a right-to-left script turns itself
 * around, never the keys and values beside it.
 */
export function Changes({ changes }: { changes: Record<string, unknown> }) {
  return (
    <>
      {Object.entries(changes).map(([key, value], index) => (
        <Fragment key={key}>
          {index > 0 && ", "}
          {key}: <bdi>{typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}</bdi>
        </Fragment>
      ))}
    </>
  );
}

/** The order's latest entries; when it has more, how many, and where the audit log lists every one (for whoever may read it). */
function History({ id, customerId, history, total }: { id: string; customerId: string; history: Order["history"]; total: number }) {
  const session = useSession();
  // Who did it, in words where the page knows them: the shop itself, the reader, the order's
  // customer (who may be staff too: a move on their own order); anyone else (another member of
  // staff) by their id. Each account linked to everything it did when the reader may read the
  // audit log.
  const by = (userId: string | null) => {
    if (!userId) return "by the shop";
    const name = userId === session.me.id ? "you" : userId === customerId ? "the customer" : userId;
    return session.can("settings:read") ? (
      <>
        by <a href={`/admin/audit?${new URLSearchParams({ userId })}`}>{name}</a>
      </>
    ) : (
      `by ${name}`
    );
  };
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {total > history.length && (
        <p>
          The latest {history.length} of {total} entries
          {session.can("settings:read") ? (
            <>
              {": "}
              <a href={`/admin/audit?${new URLSearchParams({ entityType: "order", entityId: id })}`}>every one in the audit log</a>
            </>
          ) : null}
          .
        </p>
      )}
      {history.length === 0 ? (
        <p>Nothing recorded yet.</p>
      ) : (
        <ol class="history">
          {history.map((entry) => (
            <li key={entry.id}>
              <time dateTime={entry.createdAt}>{when(entry.createdAt)}</time> <strong>{entry.action}</strong> <span class="muted">{by(entry.userId)}</span>
              {Object.keys(entry.changes).length > 0 && (
                <div class="changes">
                  <Changes changes={entry.changes} />
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
