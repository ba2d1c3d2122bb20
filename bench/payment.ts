// Shoppers adding to their cart, checking out and paying with pm_card_visa, on PostgreSQL with the
// built-in fake processor: `npm run bench:payment`. The last line reads
// `payment: <N> paid orders/s, p99 <M> ms` (M: POST /api/payment's p99).
import { runShopperBench } from "./shoppers.ts";

const result = await runShopperBench({ pay: true });
console.log(`payment: ${result.paidPerSecond} paid orders/s, p99 ${result.payment.p99} ms`);
