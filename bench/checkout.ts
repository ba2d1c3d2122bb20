// Shoppers adding to their cart and checking out, on PostgreSQL with the built-in fake processor:
// `npm run bench:checkout`. The write probe runs just before and after (see support.ts). The last line
// reads `checkout: <N> orders/s, p99 <M> ms, peak RSS <R> MB, <ratio> of the write probe (…)`.
import { runShopperBench } from "./shoppers.ts";

const result = await runShopperBench({ pay: false });
console.log(`checkout: ${result.ordersPerSecond} orders/s, p99 ${result.checkout.p99} ms, peak RSS ${result.peakRss} MB, ${result.probe.text}`);
