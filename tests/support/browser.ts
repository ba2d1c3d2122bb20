import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { waitForLock } from "./file-lock.ts";

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
    executablePath: await unpackedChromium(),
    headless: "shell",
  });
}

/**
 * The browser's path, unpacked once for every process. The package unpacks into the temporary
 * directory when its binary is not there, so test files starting at once on a new machine would
 * each unpack over the others: one launched the binary another was still writing (ETXTBSY), and a
 * run stopped while unpacking left a part of the binary that the package took for the whole. The
 * mark, named after the package's version (an upgrade unpacks its own browser), is written once
 * the whole is there.
 */
async function unpackedChromium(): Promise<string> {
  // The package exports no package.json; its entry is build/index.js.
  const { version } = JSON.parse(readFileSync(join(dirname(Bun.resolveSync("@sparticuz/chromium", import.meta.dir)), "../package.json"), "utf8"));
  const unpacked = join(tmpdir(), `chromium.unpacked-${version}`);
  if (!existsSync(unpacked)) {
    const lock = waitForLock(join(tmpdir(), "chromium.unpacking"), "the browser's unpacking");
    try {
      if (!existsSync(unpacked)) {
        // What the package unpacks next to it: a binary, its fonts and its libraries.
        for (const part of ["chromium", "fonts", "al2023"]) rmSync(join(tmpdir(), part), { recursive: true, force: true });
        await chromium.executablePath();
        writeFileSync(unpacked, "");
      }
    } finally {
      lock.release();
    }
  }
  return chromium.executablePath();
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

/**
 * Where each of `texts` is drawn in the page: the left edge of its first occurrence within the first
 * element matching `selector` whose text contains `within` (NaN when it is not there). What a
 * right-to-left run of text would turn around shows as an order of these edges.
 */
export function leftEdges(page: Page, selector: string, within: string, texts: string[]): Promise<number[]> {
  return page.evaluate(
    (selector, within, texts) => {
      const container = [...document.querySelectorAll(selector)].find((element) => element.textContent?.includes(within));
      if (!container) return texts.map(() => Number.NaN);
      const left = (text: string) => {
        const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf(text);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + text.length);
          return range.getBoundingClientRect().left;
        }
        return Number.NaN;
      };
      return texts.map(left);
    },
    selector,
    within,
    texts,
  );
}

/** What `holdRequests` gives the page: how many requests wait, and a way to let them all go. */
export type Held = { heldCount: () => number; release: () => void };

/**
 * For `evaluateOnNewDocument`, ahead of the page's scripts (which keep the fetch they find): the
 * page's requests that match `which` (each of a method and a path that is given) wait until the
 * test calls `release()` in it, as on a slow network.
 */
export function holdRequests(which: { method?: string; path?: string }): void {
  const original = window.fetch;
  const held: Array<() => void> = [];
  Object.assign(window, {
    heldCount: () => held.length,
    release: () => {
      for (const go of held.splice(0)) go();
    },
  });
  const matches = (input: RequestInfo | URL, init?: RequestInit) =>
    (!which.method || (input instanceof Request ? input.method : (init?.method ?? "GET")).toUpperCase() === which.method) &&
    (!which.path || new URL(input instanceof Request ? input.url : String(input), location.href).pathname === which.path);
  (window as { fetch: unknown }).fetch = (input: RequestInfo | URL, init?: RequestInit) =>
    matches(input, init) ? new Promise<void>((resolve) => held.push(resolve)).then(() => original(input, init)) : original(input, init);
}
