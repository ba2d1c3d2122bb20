import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

/**
 * A real headless Chromium from npm (@sparticuz/chromium unpacks its binary into the temporary
 * directory on first use), so no test needs a system browser. The package's flags for serverless
 * hosts are kept, but not the ones that switch web security off: a page must be checked with the
 * same-origin rules and CSP a shopper's browser applies.
 */
const UNSAFE = ["--disable-web-security", "--allow-running-insecure-content", "--disable-site-isolation-trials"];
/**
 * The package draws with a software GPU (SwiftShader through ANGLE), for pages that need WebGL; the
 * shop's pages need none, and Chromium's own software compositing costs far less CPU than an
 * emulated GPU: the browser tests took a quarter less CPU without it (25.6 s → 18–21 s).
 */
const SOFTWARE_GPU = ["--ignore-gpu-blocklist", "--in-process-gpu", "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"];

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    args: [...chromium.args.filter((arg) => !UNSAFE.includes(arg) && !SOFTWARE_GPU.includes(arg)), "--disable-gpu"],
    executablePath: await chromium.executablePath(),
    headless: "shell",
  });
}

/**
 * A page that can reach only `origin`: every request to another host is aborted and recorded, so a
 * test can assert that nothing left the shop.
 */
export async function pageOnlyFor(browser: Browser, origin: string): Promise<{ page: Page; blocked: string[] }> {
  const page = await browser.newPage();
  const blocked: string[] = [];
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    const url = request.url();
    if (url.startsWith(`${origin}/`) || url.startsWith("data:")) return void request.continue();
    blocked.push(url);
    void request.abort("blockedbyclient");
  });
  return { page, blocked };
}
