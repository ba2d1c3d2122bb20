import { useLocation } from "preact-iso";
import { api, run } from "../api.ts";
import { Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { Input, Pager, ProblemNote, TableWrap, formValues } from "../components/ui.tsx";
import { queryOf, when } from "../format.ts";
import { useLoad } from "../load.ts";
import { SITE, useSession } from "../session.ts";
import { Changes } from "./order.tsx";

const FILTERS = ["action", "entityType", "entityId", "userId", "from", "to"] as const;

/** The audit log (GET /api/admin/audit), newest first, with its filters. */
export function AuditPage() {
  usePageTitle("Audit log", SITE);
  const session = useSession();
  const { query, route } = useLocation();
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query[name] ?? ""])) as Record<(typeof FILTERS)[number], string>;
  const page = Number(query.page) || 1;
  const search = queryOf({ ...filters, page: page > 1 ? page : undefined });
  const given = (value: string) => value || undefined;
  const loaded = useLoad(
    () =>
      run(
        api.GET("/api/admin/audit", {
          params: {
            query: {
              action: given(filters.action),
              entityType: given(filters.entityType),
              entityId: given(filters.entityId),
              userId: given(filters.userId),
              from: given(filters.from),
              to: given(filters.to),
              page,
              limit: 50,
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
    route(`/admin/audit${queryOf(formValues(event.currentTarget as HTMLFormElement))}`);
  }

  return (
    <section>
      <h1>Audit log</h1>
      <form class="filter-form" onSubmit={apply} key={search} aria-label="Filter the audit log">
        <Input name="action" label="Action" hint="One action, or its start ending in a dot: order." defaultValue={filters.action} error={errors.action} />
        <Input name="entityType" label="Entity type" hint="order, user, product…" defaultValue={filters.entityType} error={errors.entityType} />
        <Input name="entityId" label="Entity id" defaultValue={filters.entityId} error={errors.entityId} />
        <Input name="userId" label="Done by (user id)" defaultValue={filters.userId} error={errors.userId} />
        <Input name="from" label="From" type="date" defaultValue={filters.from} error={errors.from} />
        <Input name="to" label="Before" type="date" defaultValue={filters.to} error={errors.to} />
        <div class="actions">
          <Button type="submit">Show entries</Button>
          <a href="/admin/audit">Clear filters</a>
        </div>
      </form>
      <ProblemNote problem={problem} fields={FILTERS} />
      {loaded.state === "loading" && <Loading what="Loading the audit log…" />}
      {loaded.state === "ok" && (
        <>
          <p role="status">{loaded.data.meta.total === 1 ? "1 entry" : `${loaded.data.meta.total} entries`}</p>
          {loaded.data.data.length > 0 && (
            <TableWrap label="Audit entries">
              <table class="cards">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Action</th>
                    <th scope="col">About</th>
                    <th scope="col">By</th>
                    <th scope="col">Changes</th>
                    <th scope="col">From</th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.data.data.map((entry) => (
                    <tr key={entry.id}>
                      <td data-label="When">
                        <time dateTime={entry.createdAt}>{when(entry.createdAt)}</time>
                      </td>
                      <th scope="row" data-label="Action">
                        {entry.action}
                      </th>
                      <td data-label="About">
                        {entry.entityType === "order" && entry.entityId && session.can("orders:read") ? (
                          <a href={`/admin/orders/${entry.entityId}`}>order {entry.entityId}</a>
                        ) : (
                          `${entry.entityType}${entry.entityId ? ` ${entry.entityId}` : ""}`
                        )}
                      </td>
                      <td data-label="By">
                        {entry.userId ? (
                          <a href={`/admin/audit${queryOf({ userId: entry.userId })}`}>{entry.userId === session.me.id ? "you" : entry.userId}</a>
                        ) : (
                          "the shop"
                        )}
                      </td>
                      <td class="changes" data-label="Changes">
                        <Changes changes={entry.changes} />
                      </td>
                      <td data-label="From">{entry.ipAddress ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager meta={loaded.data.meta} hrefFor={(n) => `/admin/audit${queryOf({ ...filters, page: n })}`} />
        </>
      )}
    </section>
  );
}
