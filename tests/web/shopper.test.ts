import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "puppeteer-core";
import { launchBrowser, pageOnlyFor } from "../support/browser.ts";
import { serveShop } from "../support/web.ts";

// Issue 21's two shopper stories, in a real Chromium against the whole shop on a real server: the
// tests type and click as a person would, then read what the page shows.
let shop: Awaited<ReturnType<typeof serveShop>>;
let browser: Browser;
const blocked: string[] = [];

beforeAll(async () => {
  [shop, browser] = await Promise.all([serveShop(), launchBrowser()]);
}, 30_000);
afterAll(async () => {
  await browser?.close();
  shop?.stop();
});

const usd = (dollars: number) => dollars.toLocaleString("en-US", { style: "currency", currency: "USD" });
/** The text of what the selector finds, once the page shows it: the pay page draws its sums when the order has been read. */
const textOf = async (page: Page, selector: string) => (await page.waitForSelector(selector))!.evaluate((element) => element.textContent?.trim() ?? "");

async function newPage(): Promise<Page> {
  const opened = await pageOnlyFor(browser, shop.origin);
  // Each shopper starts signed out. (The package's Chromium runs as one process, which cannot open a second browser context.)
  await (await opened.page.createCDPSession()).send("Network.clearBrowserCookies");
  opened.page.setDefaultTimeout(8_000);
  opened.page.on("requestfailed", () => blocked.push(...opened.blocked));
  return opened.page;
}

/** The control a label names, found as a person finds it: by the label's text. */
async function fill(page: Page, label: string, value: string) {
  const found = await page.waitForFunction(
    (text) => [...document.querySelectorAll("label")].find((each) => each.textContent?.trim() === text)?.htmlFor,
    {},
    label,
  );
  const id = await found.jsonValue();
  await page.locator(`[id="${id}"]`).fill(value);
}

const link = (page: Page, name: string) => page.locator(`aria/${name}[role="link"]`);
const button = (page: Page, name: string) => page.locator(`aria/${name}[role="button"]`);
const waitForText = (page: Page, text: string, selector = "body") =>
  page.waitForFunction((wanted, where) => document.querySelector(where)?.textContent?.includes(wanted), {}, text, selector);

async function register(page: Page, email: string) {
  await page.goto(`${shop.origin}/`);
  await link(page, "Register").click();
  await fill(page, "Name (optional)", "Sam Shopper");
  await fill(page, "E-mail", email);
  await fill(page, "Password", "hot sauce for breakfast");
  await button(page, "Create account").click();
  await button(page, "Sign out").wait();
}

async function checkoutTo(page: Page, address: { street: string; city: string; state: string; zip: string }) {
  await page.locator("header a[href='/cart']").click();
  await link(page, "Checkout").click();
  await fill(page, "Street address", address.street);
  await fill(page, "City", address.city);
  await fill(page, "State", address.state);
  await fill(page, "ZIP code", address.zip);
  await button(page, "Place order").click();
  await page.waitForFunction(() => /^\/orders\/[a-z0-9]+\/pay$/.test(location.pathname));
  return new URL(page.url()).pathname.split("/")[2]!;
}

/** The order as the API gives it to the signed-in shopper (the page's own session). */
const apiOrder = (page: Page, id: string) => page.evaluate((orderId) => fetch(`/api/orders/${orderId}`).then((answer) => answer.json()), id);

async function pay(page: Page, method: string) {
  const found = await page.waitForFunction(
    (name) => [...document.querySelectorAll("label.choice")].findIndex((label) => label.textContent?.startsWith(`${name} (`)) + 1 || null,
    {},
    method,
  );
  const choice = (await found.jsonValue()) as number;
  await page.locator(`label.choice:nth-of-type(${choice}) input`).click();
  await page.locator("form[aria-label=Payment] button[type=submit]").click();
}

test("a shopper registers, searches, adds two sauces, checks out to Texas, sees the API's sums, pays with a Visa and sees the order CONFIRMED", async () => {
  const page = await newPage();
  await register(page, "sam@example.com");

  await fill(page, "Search", "habanero");
  await page.keyboard.press("Enter");
  await waitForText(page, "2 sauces matching “habanero”", "[role=status]");
  await page.locator('aria/Add to cart: Caribbean Habanero Hot Sauce[role="button"]').click();
  await waitForText(page, "Added to your cart.");
  await page.locator('aria/Add to cart: Pineapple Habanero Sauce[role="button"]').click();
  await page.waitForFunction(() => document.querySelector("[data-cart-count]")?.getAttribute("data-cart-count") === "2");

  const id = await checkoutTo(page, { street: "100 Congress Ave", city: "Austin", state: "TX", zip: "78701" });
  const order = await apiOrder(page, id);
  expect(order.items.map((item: { productName: string }) => item.productName).sort()).toEqual(["Caribbean Habanero Hot Sauce", "Pineapple Habanero Sauce"]);
  expect(order.subtotal).toBe(24.98);
  const shown = {
    subtotal: await textOf(page, "[data-total=subtotal]"),
    shipping: await textOf(page, "[data-total=shipping]"),
    tax: await textOf(page, "[data-total=tax]"),
    total: await textOf(page, "[data-total=total]"),
  };
  expect(shown).toEqual({ subtotal: usd(order.subtotal), shipping: usd(order.shippingCost), tax: usd(order.tax), total: usd(order.total) });
  expect(order.tax).toBeGreaterThan(0);

  await pay(page, "Visa");
  await page.waitForFunction((orderId) => location.pathname === `/orders/${orderId}`, {}, id);
  await waitForText(page, "Your payment went through");
  expect(await textOf(page, ".facts [data-status]")).toBe("Confirmed");
  expect((await apiOrder(page, id)).status).toBe("CONFIRMED");

  await button(page, "Sign out").click();
  await link(page, "Sign in").wait();
  expect((await page.evaluate(() => fetch("/api/auth/session").then((answer) => answer.json()))).user).toBeUndefined();
  expect(blocked).toEqual([]);
}, 30_000);

test("another shopper: a declined card is said at the payment field and the order stays payable; 3-D Secure is authorized on the challenge page, and the order is CONFIRMED", async () => {
  const page = await newPage();
  await register(page, "alex@example.com");
  await link(page, "Ghost Pepper Inferno").click();
  await waitForText(page, "Ghost Pepper Inferno", "h1");
  await page.locator('aria/Add to cart: Ghost Pepper Inferno[role="button"]').click();
  await waitForText(page, "Added to your cart.");
  const id = await checkoutTo(page, { street: "1 Main St", city: "Portland", state: "OR", zip: "97201" });

  await pay(page, "Declined card");
  const error = await page.locator("#payment-error").waitHandle();
  expect(await error.evaluate((element) => element.textContent)).toBe("Your card was declined.");
  const describedBy = await page.$eval("fieldset", (fieldset) => fieldset.getAttribute("aria-describedby"));
  expect(describedBy).toBe("payment-error");
  expect(await apiOrder(page, id)).toMatchObject({ status: "PENDING", paymentStatus: "FAILED" });
  expect(await page.$("button[type=submit]")).not.toBeNull();

  await pay(page, "Card that asks for 3-D Secure");
  await page.waitForFunction(() => location.pathname.startsWith("/api/fake-processor/challenge/"));
  // The address changes when the navigation commits, before the new page is parsed: wait for its heading.
  await waitForText(page, "3-D Secure test challenge", "h1");
  expect(await textOf(page, "h1")).toBe("3-D Secure test challenge");
  await button(page, "Authorize").click();
  await waitForText(page, "The payment was authorized.");
  await link(page, "Back to the shop").click();
  await page.waitForFunction((orderId) => location.pathname === `/orders/${orderId}`, {}, id);
  await page.waitForFunction(() => document.querySelector(".facts [data-status]")?.textContent === "Confirmed");
  expect(await apiOrder(page, id)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  expect(blocked).toEqual([]);
}, 30_000);
