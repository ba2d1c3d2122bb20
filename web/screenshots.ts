/**
 * `npm run screenshots`: PNGs of the main pages of the storefront and the back office at 375 px and
 * 1280 px wide, into docs/screenshots/. The whole shop runs in this process on a free loopback port
 * (the demo catalog, a shopper with a shipped order, an unpaid one and a cart, an admin), and the
 * npm package's headless Chromium takes the pictures; nothing is fetched from elsewhere.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { NO_ORIGIN } from "../src/domain/audit.ts";
import { SYSTEM_ACTOR } from "../src/domain/permissions.ts";
import { launchBrowser, pageOnlyFor } from "../tests/support/browser.ts";
import { serveShop } from "../tests/support/web.ts";

const OUT = join(import.meta.dir, "..", "docs", "screenshots");
const WIDTHS = [375, 1280] as const;
const SHOPPER = { email: "sam@example.com", password: "hot sauce for breakfast", name: "Sam Shopper" };
const ADMIN = { email: "admin@example.com", password: "a long admin passphrase" };

async function call(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async (how, where, what) => {
      const answer = await fetch(where, {
        method: how,
        headers: { "content-type": "application/json" },
        body: what === undefined ? null : JSON.stringify(what),
      });
      return answer.json();
    },
    method,
    path,
    body,
  );
}

async function signIn(page: Page, account: { email: string; password: string }) {
  await call(page, "POST", "/api/auth/signout", {});
  await call(page, "POST", "/api/auth/callback/credentials", account);
}

const texas = { address1: "100 Congress Ave", city: "Austin", state: "TX", postalCode: "78701" };

async function placeOrder(page: Page, slugs: string[]): Promise<string> {
  for (const slug of slugs) {
    const product = (await call(page, "GET", `/api/products/${slug}`)).data;
    await call(page, "POST", "/api/cart", { productId: product.id, quantity: 1 });
  }
  return (await call(page, "POST", "/api/cart/checkout", { shippingAddress: texas })).orderId;
}

async function shoot(page: Page, origin: string, name: string, path: string) {
  for (const width of WIDTHS) {
    await page.setViewport({ width, height: width === 375 ? 812 : 900 });
    await page.goto(`${origin}${path}`, { waitUntil: "networkidle0" });
    await page.waitForFunction(() => document.querySelector("main h1") && !document.querySelector(".loading"), { timeout: 8_000 }).catch(() => undefined);
    const file = join(OUT, `${name}-${width}.png`);
    await page.screenshot({ path: file as `${string}.png`, fullPage: true });
    console.log(`wrote ${file}`);
  }
}

const shop = await serveShop();
const browser = await launchBrowser();
try {
  mkdirSync(OUT, { recursive: true });
  const { page, blocked } = await pageOnlyFor(browser, shop.origin);
  await page.goto(`${shop.origin}/`);
  await call(page, "POST", "/api/auth/register", SHOPPER);
  await signIn(page, SHOPPER);
  const shipped = await placeOrder(page, ["caribbean-habanero-hot-sauce", "pineapple-habanero-sauce"]);
  await call(page, "POST", "/api/payment", { orderId: shipped, paymentMethodId: "pm_card_visa" });
  await shop.useCases.changeOrderStatus(SYSTEM_ACTOR, { id: shipped }, { status: "PROCESSING" }, NO_ORIGIN);
  await shop.useCases.changeOrderStatus(SYSTEM_ACTOR, { id: shipped }, { status: "SHIPPED", trackingNumber: "1Z999AA10123456784" }, NO_ORIGIN);
  const unpaid = await placeOrder(page, ["ghost-pepper-inferno"]);
  for (const slug of ["smokehouse-hickory-bbq-sauce", "roasted-garlic-sriracha"]) {
    const product = (await call(page, "GET", `/api/products/${slug}`)).data;
    await call(page, "POST", "/api/cart", { productId: product.id, quantity: 2 });
  }

  const storefront: Array<[string, string]> = [
    ["catalog", "/"],
    ["search", "/?search=habanero&sort=heat_desc"],
    ["product", "/products/caribbean-habanero-hot-sauce"],
    ["cart", "/cart"],
    ["checkout", "/checkout"],
    ["payment", `/orders/${unpaid}/pay`],
    ["orders", "/orders"],
    ["order", `/orders/${shipped}`],
  ];
  for (const [name, path] of storefront) await shoot(page, shop.origin, `storefront-${name}`, path);
  await call(page, "POST", "/api/auth/signout", {});
  await shoot(page, shop.origin, "storefront-sign-in", "/signin");

  await shop.useCases.ensureAdmin(SYSTEM_ACTOR, ADMIN);
  await signIn(page, ADMIN);
  const admin: Array<[string, string]> = [
    ["home", "/admin"],
    ["orders", "/admin/orders"],
    ["order", `/admin/orders/${shipped}`],
    ["users", "/admin/users"],
    ["products", "/admin/products"],
    ["reports", "/admin/reports"],
    ["audit", "/admin/audit"],
  ];
  for (const [name, path] of admin) await shoot(page, shop.origin, `admin-${name}`, path);
  if (blocked.length > 0) throw new Error(`The pages asked for files from other hosts: ${blocked.join(", ")}`);
} finally {
  await browser.close();
  shop.stop();
}
