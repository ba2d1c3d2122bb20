import type { ComponentChildren } from "preact";
import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { type Problem, type Schemas, api, run } from "../api.ts";
import { Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { CellSelect, Input, Notice, Pager, ProblemNote, Select, TableWrap, formValues } from "../components/ui.tsx";
import { label, money, queryOf, when } from "../format.ts";
import { useLoad } from "../load.ts";
import { GUARDED_ROLES, SITE, useProblemSetter, useSession } from "../session.ts";

type Account = Schemas["AccountSummary"];
type Role = Account["role"];
const ROLES: readonly Role[] = ["ADMIN", "DEVELOPER", "STAFF", "CUSTOMER", "WHOLESALE", "FUNDRAISER"];

/** Accounts (GET /api/admin/users), with a role change for those who may make one (users:write). */
export function UsersPage() {
  usePageTitle("Users", SITE);
  const session = useSession();
  const { query, route } = useLocation();
  const q = query.q ?? "";
  const role = (ROLES as readonly string[]).includes(query.role ?? "") ? (query.role as Role) : undefined;
  const page = Number(query.page) || 1;
  const search = queryOf({ q, role, page: page > 1 ? page : undefined });
  const loaded = useLoad(() => run(api.GET("/api/admin/users", { params: { query: { q: q || undefined, role, page, limit: 20 } } })), search);
  const problem = loaded.state === "failed" ? loaded.problem : null;
  const mayChange = session.can("users:write");
  const [done, setDone] = useState<ComponentChildren>(null);

  async function changed(news: ComponentChildren) {
    await loaded.reload();
    setDone(news);
  }

  function apply(event: Event) {
    event.preventDefault();
    setDone(null);
    route(`/admin/users${queryOf(formValues(event.currentTarget as HTMLFormElement))}`);
  }

  return (
    <section>
      <h1>Users</h1>
      <form class="filter-form" onSubmit={apply} key={search} aria-label="Filter the accounts">
        <Input name="q" label="Search" hint="Part of the e-mail or the name" type="search" defaultValue={q} error={problem?.fields.q} />
        <Select
          name="role"
          label="Role"
          defaultValue={role ?? ""}
          options={[["", "Any role"], ...ROLES.map((r) => [r, label(r)] as const)]}
          error={problem?.fields.role}
        />
        <div class="actions">
          <Button type="submit">Show accounts</Button>
          <a href="/admin/users">Clear filters</a>
        </div>
      </form>
      <ProblemNote problem={problem} fields={["q", "role"]} />
      {done && <Notice>{done}</Notice>}
      {loaded.state === "loading" && <Loading what="Loading accounts…" />}
      {loaded.state === "ok" && (
        <>
          <div class="list-head">
            <p role="status">{loaded.data.meta.total === 1 ? "1 account" : `${loaded.data.meta.total} accounts`}</p>
            {session.can("users:export") && (
              <a class="button button--secondary" href={`/api/admin/users/export${queryOf({ q, role })}`} download>
                Export CSV
              </a>
            )}
          </div>
          {loaded.data.data.length > 0 && (
            <TableWrap label="Accounts">
              <table class="cards">
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Role</th>
                    <th scope="col" class="number">
                      Orders
                    </th>
                    <th scope="col" class="number">
                      Spent
                    </th>
                    <th scope="col">Last order</th>
                    <th scope="col">Joined</th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.data.data.map((account) => (
                    <tr key={account.id}>
                      <th scope="row" data-label="Account">
                        <bdi>{account.email}</bdi>
                        <br />
                        <span class="muted">{account.name ? <bdi>{account.name}</bdi> : "no name"}</span>
                      </th>
                      <td data-label="Role">{mayChange ? <RoleChange account={account} onChanged={changed} /> : label(account.role)}</td>
                      <td class="number" data-label="Orders">
                        {account.orderCount > 0 ? <a href={`/admin/orders?customerId=${account.id}`}>{account.orderCount}</a> : 0}
                      </td>
                      <td class="number" data-label="Spent">
                        {money(account.totalSpent)}
                      </td>
                      <td data-label="Last order">{when(account.lastOrderAt)}</td>
                      <td data-label="Joined">{when(account.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager meta={loaded.data.meta} hrefFor={(n) => `/admin/users${queryOf({ q, role, page: n })}`} />
        </>
      )}
    </section>
  );
}

/**
 * The role select of one account. Only an ADMIN or a DEVELOPER may give or take ADMIN or DEVELOPER
 * (decisions §12), so anyone else is offered neither, and no control on such an account.
 */
function RoleChange({ account, onChanged }: { account: Account; onChanged: (news: ComponentChildren) => Promise<void> }) {
  const session = useSession();
  const [problem, showProblem] = useState<Problem | null>(null);
  const setProblem = useProblemSetter(showProblem);
  const [busy, setBusy] = useState(false);
  const guarded = !GUARDED_ROLES.has(session.me.role);
  if (guarded && GUARDED_ROLES.has(account.role)) return <>{label(account.role)}</>;
  const offered = ROLES.filter((r) => !guarded || !GUARDED_ROLES.has(r));

  async function change(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const role = String(new FormData(form).get("role")) as Role;
    // The last answer's error goes as this one is asked (or nothing is: the role is the account's already).
    setProblem(null);
    if (role === account.role) return;
    setBusy(true);
    const outcome = await run(api.PUT("/api/admin/users/{id}/role", { params: { path: { id: account.id } }, body: { role } }));
    setBusy(false);
    if (!outcome.ok) {
      // Refused, the account keeps its role, and the select says so again (found by a review).
      (form.elements.namedItem("role") as HTMLSelectElement).value = account.role;
      return setProblem(outcome.problem);
    }
    setProblem(null);
    // One's own role changed: what the pages may draw changes with it.
    if (account.id === session.me.id) return void (await session.refresh());
    await onChanged(
      <>
        <bdi>{account.email}</bdi> is {label(outcome.data.data.role)} now.
      </>,
    );
  }

  return (
    <form class="inline" onSubmit={change}>
      <CellSelect
        name="role"
        label={`Role of ${account.email}`}
        defaultValue={account.role}
        options={offered.map((r) => [r, label(r)] as const)}
        error={problem ? (problem.fields.role ?? problem.message) : undefined}
      />
      <Button type="submit" variant="secondary" busy={busy} aria-label={`Change role of ${account.email}`}>
        Change role
      </Button>
    </form>
  );
}
