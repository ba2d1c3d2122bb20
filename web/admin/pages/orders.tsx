import { useLocation } from "preact-iso";
import { api, run } from "../api.ts";
import { Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { CheckGroup, Input, Pager, ProblemNote, TableWrap, formValues } from "../components/ui.tsx";
import { label, money, queryOf, when } from "../format.ts";
import { useLoad } from "../load.ts";
import { SITE, useSession } from "../session.ts";

export const ORDER_STATUSES = ["PENDING", "CONFIRMED", "PROCESSING", "SHIPPED", "DELIVERED", "CANCELLED", "REFUNDED"] as const;
export const PAYMENT_STATUSES = ["PENDING", "PAID", "FAILED", "REFUNDED"] as const;
const FILTERS = ["status", "paymentStatus", "q", "from", "to", "customerId"] as const;

/** The orders queue (GET /api/admin/orders): the filters of decisions §12 in the address, so a filtered queue can be linked and gone back to. */
export function OrdersPage() {
  usePageTitle("Orders", SITE);
  const session = useSession();
  const { query, route } = useLocation();
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query[name] ?? ""])) as Record<(typeof FILTERS)[number], string>;
  const page = Number(query.page) || 1;
  const search = queryOf({ ...filters, page: page > 1 ? page : undefined });
  const loaded = useLoad(
    () =>
      run(
        api.GET("/api/admin/orders", {
          params: {
            query: {
              status: filters.status || undefined,
              paymentStatus: filters.paymentStatus || undefined,
              q: filters.q || undefined,
              from: filters.from || undefined,
              to: filters.to || undefined,
              customerId: filters.customerId || undefined,
              page,
              limit: 20,
            },
          },
        }),
      ),
    search,
  );
  const problem = loaded.state === "failed" ? loaded.problem : null;
  const errors = problem?.fields ?? {};

  function apply(event: Event) {
    event.preventDefault();
    route(`/admin/orders${queryOf(formValues(event.currentTarget as HTMLFormElement))}`);
  }

  return (
    <section>
      <h1>Orders</h1>
      <form class="filter-form" onSubmit={apply} key={search} aria-label="Filter the orders">
        <Input name="q" label="Search" hint="Order number, or the customer's e-mail or name" type="search" defaultValue={filters.q} error={errors.q} />
        <CheckGroup name="status" legend="Status" values={ORDER_STATUSES} checked={filters.status.split(",")} error={errors.status} />
        <CheckGroup name="paymentStatus" legend="Payment" values={PAYMENT_STATUSES} checked={filters.paymentStatus.split(",")} error={errors.paymentStatus} />
        <Input name="from" label="Placed from" type="date" defaultValue={filters.from} error={errors.from} />
        <Input name="to" label="Placed before" type="date" defaultValue={filters.to} error={errors.to} />
        <Input name="customerId" label="Customer id" defaultValue={filters.customerId} error={errors.customerId} />
        <div class="actions">
          <Button type="submit">Show orders</Button>
          <a href="/admin/orders">Clear filters</a>
        </div>
      </form>
      <ProblemNote problem={problem} fields={FILTERS} />
      {loaded.state === "loading" && <Loading what="Loading orders…" />}
      {loaded.state === "ok" && (
        <>
          <div class="list-head">
            <p role="status">
              {loaded.data.meta.total === 1 ? "1 order" : `${loaded.data.meta.total} orders`}
              {search ? " match" : ""}
            </p>
            {session.can("orders:export") && (
              <a class="button button--secondary" href={`/api/admin/orders/export${queryOf(filters)}`} download>
                Export CSV
              </a>
            )}
          </div>
          {loaded.data.data.length > 0 && (
            <TableWrap label="Orders">
              <table class="cards">
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Placed</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Status</th>
                    <th scope="col">Payment</th>
                    <th scope="col" class="number">
                      Lines
                    </th>
                    <th scope="col" class="number">
                      Total
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.data.data.map((order) => (
                    <tr key={order.id}>
                      <th scope="row" data-label="Order">
                        <a href={`/admin/orders/${order.id}`}>{order.orderNumber}</a>
                      </th>
                      <td data-label="Placed">{when(order.createdAt)}</td>
                      <td data-label="Customer">
                        <bdi>{order.customer.name ?? "—"}</bdi>
                        <br />
                        <bdi class="muted">{order.customer.email}</bdi>
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={order.status} />
                      </td>
                      <td data-label="Payment">{label(order.paymentStatus)}</td>
                      <td class="number" data-label="Lines">
                        {order.itemCount}
                      </td>
                      <td class="number" data-label="Total">
                        {money(order.total)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager meta={loaded.data.meta} hrefFor={(n) => `/admin/orders${queryOf({ ...filters, page: n })}`} />
        </>
      )}
    </section>
  );
}

/** An order's status, marked good once it is on its way and bad once it has ended without being delivered. */
export function StatusBadge({ status }: { status: string }) {
  const tone = status === "SHIPPED" || status === "DELIVERED" ? " badge--ok" : status === "CANCELLED" || status === "REFUNDED" ? " badge--bad" : "";
  return <span class={`badge${tone}`}>{label(status)}</span>;
}
