// Shoppers adding to their cart and checking out, on PostgreSQL with the built-in fake processor:
// `npm run bench:checkout`. The last line reads `checkout: <N> orders/s, p99 <M> ms`.
import { runShopperBench } from "./shoppers.ts";

await runShopperBench({ pay: false });
