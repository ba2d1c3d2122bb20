// Catalog reads against PostgreSQL: `npm run bench:catalog` (or `bun bench/catalog.ts`). The last
// line reads `catalog: GET /api/products/:id <N> requests/s, p99 <M> ms; a page of 20 …; a search …`.
import { load, prepareDatabase, printTable, startServer } from "./support.ts";

const databaseUrl = await prepareDatabase();
const server = await startServer({ DATABASE_URL: databaseUrl });
try {
  const list = (await (await fetch(`${server.base}/api/products?limit=1`)).json()) as { data: { id: string }[] };
  const id = list.data[0]?.id;
  await load("warm-up", `${server.base}/api/products/${id}`, { seconds: 3 });
  const [one, page, search] = [
    await load("GET /api/products/:id", `${server.base}/api/products/${id}`),
    await load("GET /api/products (page of 20)", `${server.base}/api/products`),
    await load("GET /api/products?search=pepper&sort=price_asc", `${server.base}/api/products?search=pepper&sort=price_asc`),
  ] as const;
  printTable([one, page, search]);
  console.log(
    `catalog: GET /api/products/:id ${one.requestsPerSecond} requests/s, p99 ${one.p99} ms; a page of 20 ${page.requestsPerSecond}/s; a search ${search.requestsPerSecond}/s`,
  );
} finally {
  server.stop();
}
