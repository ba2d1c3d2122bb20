import type { ComponentType } from "preact";
import { useState } from "preact/hooks";
import { LocationProvider, Route, Router, useLocation, useRoute } from "preact-iso";
import { Shell } from "../shared/layout.tsx";
import { Button, usePageTitle } from "../shared/ui.tsx";
import { Register, SignIn } from "./pages/account.tsx";
import { CartPage } from "./pages/cart.tsx";
import { Catalog } from "./pages/catalog.tsx";
import { Checkout } from "./pages/checkout.tsx";
import { OrderPage, Orders } from "./pages/orders.tsx";
import { PayPage } from "./pages/pay.tsx";
import { ProductPage } from "./pages/product.tsx";
import { SessionProvider, useSession } from "./session.tsx";

/**
 * A page drawn anew for each value of its address's parameter: back or forward between two orders
 * (or two sauces) never shows the last one's facts, or a question asked about it, under the other's
 * address while it loads.
 */
function anew(Page: ComponentType, param: string): ComponentType {
  return function Anew() {
    const { params } = useRoute();
    return <Page key={params[param]} />;
  };
}
const EachProduct = anew(ProductPage, "slug");
const EachOrder = anew(OrderPage, "id");
const EachPayment = anew(PayPage, "id");

function NotFound() {
  usePageTitle("Page not found", "Storefront");
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no page here. <a href="/">Go to the catalog</a>.
      </p>
    </>
  );
}

/** The header's end: the cart and its count, and the account. */
function Account() {
  const { user, cartCount, signOut } = useSession();
  const { route } = useLocation();
  const [failed, setFailed] = useState(false);
  if (user === undefined) return null;
  if (user === null)
    return (
      <>
        <a href="/signin">Sign in</a>
        <a href="/register">Register</a>
      </>
    );
  return (
    <>
      <a href="/cart" data-cart-count={cartCount}>
        Cart ({cartCount}
        <span class="visually-hidden"> {cartCount === 1 ? "item" : "items"}</span>)
      </a>
      <bdi class="muted account-name">{user.name ?? user.email}</bdi>
      <Button
        variant="link"
        onClick={async () => {
          setFailed(false);
          if (await signOut()) route("/");
          else setFailed(true);
        }}
      >
        Sign out
      </Button>
      {failed && (
        <span role="alert" class="account-problem">
          Not signed out: the shop could not be reached or refused. Try again.
        </span>
      )}
    </>
  );
}

const NAV = [
  { href: "/", label: "Catalog" },
  { href: "/orders", label: "Orders", prefix: true },
];

/** The storefront: every path outside /admin and /api is one of its pages. */
export function App() {
  return (
    <LocationProvider scope={/^\/(?!admin(\/|$)|api(\/|$))/}>
      <SessionProvider>
        <Shell brand="Storefront" home="/" nav={NAV} aside={<Account />}>
          <Router>
            <Route path="/" component={Catalog} />
            <Route path="/products/:slug" component={EachProduct} />
            <Route path="/cart" component={CartPage} />
            <Route path="/checkout" component={Checkout} />
            <Route path="/signin" component={SignIn} />
            <Route path="/register" component={Register} />
            <Route path="/orders" component={Orders} />
            <Route path="/orders/:id" component={EachOrder} />
            <Route path="/orders/:id/pay" component={EachPayment} />
            <Route default component={NotFound} />
          </Router>
        </Shell>
      </SessionProvider>
    </LocationProvider>
  );
}
