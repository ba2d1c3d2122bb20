import { render } from "preact";
import { LocationProvider, Route, Router } from "preact-iso";
import { Shell } from "../shared/layout.tsx";
import { usePageTitle } from "../shared/ui.tsx";

/** The back office's pages (a placeholder: the pages come with the back-office work of issue 21). */
function Home() {
  usePageTitle("Back office", "Storefront");
  return (
    <>
      <h1>Back office</h1>
      <p>The shop's back office.</p>
    </>
  );
}

function App() {
  return (
    <LocationProvider scope="/admin">
      <Shell brand="Storefront back office" home="/admin" nav={[{ href: "/admin", label: "Home" }]}>
        <Router>
          <Route path="/admin" component={Home} />
          <Route default component={Home} />
        </Router>
      </Shell>
    </LocationProvider>
  );
}

render(<App />, document.getElementById("app")!);
