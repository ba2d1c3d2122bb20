import type { AnyComponent } from "preact";
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { Shell } from "../shared/layout.tsx";
import { Button, Loading, usePageTitle } from "../shared/ui.tsx";
import { api, run } from "./api.ts";
import { AuditPage } from "./pages/audit.tsx";
import { OrderPage } from "./pages/order.tsx";
import { OrdersPage } from "./pages/orders.tsx";
import { ProductsPage } from "./pages/products.tsx";
import { ReportPage } from "./pages/report.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { UsersPage } from "./pages/users.tsx";
import { PAGES, type Permission, type Profile, SITE, type Session, SessionContext, useSession } from "./session.ts";

type Who = { state: "loading" } | { state: "signed-out" } | { state: "signed-in"; me: Profile } | { state: "unreachable"; message: string };

/** The back office: who is signed in decides what is drawn (GET /api/users/me and its permissions); the API decides what is allowed. */
export function App() {
  const [who, setWho] = useState<Who>({ state: "loading" });
  const refresh = useCallback(async () => {
    // The session first, which answers 200 signed in or not: a signed-out visitor's browser logs no
    // failed request (GET /api/users/me would be a 401).
    const session = await run(api.GET("/api/auth/session"));
    if (session.ok && !("user" in session.data)) return setWho({ state: "signed-out" });
    const outcome = await run(api.GET("/api/users/me"));
    if (outcome.ok) setWho({ state: "signed-in", me: outcome.data.data });
    else if (outcome.problem.status === 401) setWho({ state: "signed-out" });
    else setWho({ state: "unreachable", message: outcome.problem.message });
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const session = useMemo<Session | null>(() => {
    if (who.state !== "signed-in") return null;
    const granted = new Set<string>(who.me.permissions);
    return {
      me: who.me,
      can: (permission) => granted.has(permission),
      refresh,
      async signOut() {
        const outcome = await run(api.POST("/api/auth/signout", { body: {} }));
        // A 401: the session had ended already, which is what was asked.
        if (!outcome.ok && outcome.problem.status !== 401) return outcome.problem;
        setWho({ state: "signed-out" });
        return null;
      },
    };
  }, [who, refresh]);

  const nav = session ? PAGES.filter((page) => session.can(page.permission)).map((page) => ({ href: page.path, label: page.label, prefix: true })) : [];
  return (
    <LocationProvider scope="/admin">
      <Shell brand="Storefront back office" home="/admin" nav={nav} aside={session && <Who session={session} />}>
        {who.state === "loading" && <Loading />}
        {who.state === "unreachable" && (
          <div class="alert" role="alert">
            <p>{who.message}</p>
            <Button variant="secondary" onClick={() => void refresh()}>
              Try again
            </Button>
          </div>
        )}
        {who.state === "signed-out" && <SignInPage onSignedIn={refresh} />}
        {session && (
          <SessionContext.Provider value={session}>
            <Pages />
          </SessionContext.Provider>
        )}
      </Shell>
    </LocationProvider>
  );
}

function Who({ session }: { session: Session }) {
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <span>
        <bdi>{session.me.email}</bdi> <span class="badge">{session.me.role}</span>
      </span>
      <Button
        variant="secondary"
        onClick={async () => {
          setProblem(null);
          const failed = await session.signOut();
          if (failed) setProblem(`Not signed out: ${failed.message}`);
        }}
      >
        Sign out
      </Button>
      {problem && (
        <span role="alert" class="account-problem">
          {problem}
        </span>
      )}
    </>
  );
}

/** The pages the signed-in role may read; a page it may not read is not routed, so it is never drawn. */
const ROUTES: ReadonlyArray<{ path: string; permission: Permission; component: AnyComponent<{ id: string }> }> = [
  { path: "/admin/orders", permission: "orders:read", component: OrdersPage },
  { path: "/admin/orders/:id", permission: "orders:read", component: OrderPage },
  { path: "/admin/products", permission: "products:read", component: ProductsPage },
  { path: "/admin/users", permission: "users:read", component: UsersPage },
  { path: "/admin/reports", permission: "analytics:read", component: ReportPage },
  { path: "/admin/audit", permission: "settings:read", component: AuditPage },
];

function Pages() {
  const session = useSession();
  return (
    <Router>
      {[
        <Route key="home" path="/admin" component={Home} />,
        ...ROUTES.filter((r) => session.can(r.permission)).map((r) => <Route key={r.path} path={r.path} component={r.component} />),
        <Route key="none" default component={NotFound} />,
      ]}
    </Router>
  );
}

/** /admin opens the first page the role may read. */
function Home() {
  const session = useSession();
  const { route } = useLocation();
  const first = PAGES.find((page) => session.can(page.permission));
  usePageTitle(first ? "" : "No back-office access", SITE);
  useEffect(() => {
    if (first) route(first.path, true);
  }, [first, route]);
  if (first) return null;
  return (
    <section>
      <h1>No back-office access</h1>
      <p>
        You are signed in as {session.me.email} ({session.me.role}), and this role may use none of the back office. Sign out and sign in with a staff account,
        or go to <a href="/">the shop</a>.
      </p>
    </section>
  );
}

function NotFound() {
  usePageTitle("Page not found", SITE);
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no such page here, or your role may not open it. <a href="/admin">Back to the back office</a>.
      </p>
    </section>
  );
}
