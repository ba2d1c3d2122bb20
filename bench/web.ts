/**
 * `npm run bench:web`: the storefront's first load over loopback. The real server (`bun src/main.ts`
 * on PostgreSQL with the demo catalog, as the other benches; the web build from its cache) and the npm
 * package's headless Chromium; each of 20 loads is cold (a new page, the browser's cache off), after
 * one load that warms the server. Reports the median DOMContentLoaded (the page's script has run and
 * drawn it) and the bytes transferred until the network is idle (page, script, stylesheet and the
 * catalog's API answers). The goal is under 500 ms.
 */
import { createServer } from "node:net";
import { launchBrowser } from "../tests/support/browser.ts";
import { prepareDatabase, startServer } from "./support.ts";

const LOADS = 20;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const port = await freePort();
const server = await startServer({ DATABASE_URL: await prepareDatabase(), PUBLIC_URL: `http://127.0.0.1:${port}` }, "src/main.ts", "/api/health", port);
const browser = await launchBrowser();
try {
  const loads: Array<{ domContentLoaded: number; bytes: number; requests: number }> = [];
  for (let i = 0; i <= LOADS; i++) {
    const page = await browser.newPage();
    await page.setCacheEnabled(false);
    const cdp = await page.createCDPSession();
    await cdp.send("Network.enable");
    let bytes = 0;
    let requests = 0;
    cdp.on("Network.loadingFinished", (event) => {
      bytes += event.encodedDataLength;
      requests++;
    });
    await page.goto(`${server.base}/`, { waitUntil: "networkidle0" });
    await page.waitForSelector(".product-card");
    const domContentLoaded = await page.evaluate(() => {
      const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      return navigation.domContentLoadedEventEnd - navigation.startTime;
    });
    await page.close();
    if (i > 0) loads.push({ domContentLoaded, bytes, requests });
  }
  const ms = Math.round(median(loads.map((load) => load.domContentLoaded)));
  const kb = Math.round(median(loads.map((load) => load.bytes)) / 1024);
  const sorted = loads.map((load) => load.domContentLoaded).sort((a, b) => a - b);
  console.log(`${LOADS} cold loads of / (requests each: ${loads[0]!.requests})`);
  console.log(`DOMContentLoaded ms: min ${Math.round(sorted[0]!)}, median ${ms}, max ${Math.round(sorted.at(-1)!)}`);
  console.log(`web: first load ${ms} ms, ${kb} KB`);
} finally {
  await browser.close();
  server.stop();
}
