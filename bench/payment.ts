// Shoppers adding to their cart, checking out and paying with pm_card_visa, on PostgreSQL with the
// built-in fake processor: `npm run bench:payment`. The write probe runs just before and after (see
// support.ts). The last line reads `payment: <N> paid orders/s, p99 <M> ms, <ratio> of the write
// probe (…)`, M being POST /api/payment's p99.
import { runShopperBench } from "./shoppers.ts";

const result = await runShopperBench({ pay: true });
console.log(`payment: ${result.paidPerSecond} paid orders/s, p99 ${result.payment.p99} ms, peak RSS ${result.peakRss} MB, ${result.probe.text}`);
