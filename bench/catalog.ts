// Catalog reads against PostgreSQL: `npm run bench:catalog` (or `bun bench/catalog.ts`).
import { load, prepareDatabase, printTable, startServer } from "./support.ts";

const databaseUrl = await prepareDatabase();
const server = await startServer({ DATABASE_URL: databaseUrl });
try {
  const list = (await (await fetch(`${server.base}/api/products?limit=1`)).json()) as { data: { id: string }[] };
  const id = list.data[0]?.id;
  await load("warm-up", `${server.base}/api/products/${id}`, { seconds: 3 });
  printTable([
    await load("GET /api/products/:id", `${server.base}/api/products/${id}`),
    await load("GET /api/products (page of 20)", `${server.base}/api/products`),
    await load("GET /api/products?search=pepper&sort=price_asc", `${server.base}/api/products?search=pepper&sort=price_asc`),
  ]);
} finally {
  server.stop();
}
