import { LocationProvider, Route, Router } from "preact-iso";
import { Shell } from "../shared/layout.tsx";
import { usePageTitle } from "../shared/ui.tsx";

function Catalog() {
  usePageTitle("", "Storefront");
  return <h1>Hot sauces</h1>;
}

/** The storefront: every path outside /admin and /api is one of its pages. */
export function App() {
  return (
    <LocationProvider scope={/^\/(?!admin(\/|$)|api(\/|$))/}>
      <Shell brand="Storefront" home="/" nav={[{ href: "/", label: "Catalog" }]}>
        <Router>
          <Route path="/" component={Catalog} />
          <Route default component={Catalog} />
        </Router>
      </Shell>
    </LocationProvider>
  );
}
