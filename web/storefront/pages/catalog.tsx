import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type Problem, api, problemFrom, unwrap } from "../../api/client.ts";
import type { components } from "../../api/schema.d.ts";
import { Alert, Button, Loading, SelectField, TextField, usePageTitle } from "../../shared/ui.tsx";
import { AddToCart, Heat, Price, ProductImage } from "../components.tsx";

type Product = components["schemas"]["Product"];
type Sort = "newest" | "price_asc" | "price_desc" | "name_asc" | "name_desc" | "heat_asc" | "heat_desc";

const SORTS: ReadonlyArray<readonly [Sort, string]> = [
  ["newest", "Newest"],
  ["price_asc", "Price, low to high"],
  ["price_desc", "Price, high to low"],
  ["name_asc", "Name, A to Z"],
  ["name_desc", "Name, Z to A"],
  ["heat_asc", "Mildest first"],
  ["heat_desc", "Hottest first"],
];
const HEATS: ReadonlyArray<readonly [string, string]> = [["", "Any heat"], ["0", "No heat"], ...[1, 2, 3, 4, 5].map((n) => [String(n), `Heat ${n}`] as const)];
const PAGE_SIZE = 12;

/** The query a catalog address carries: ?search=…&heat=…&sort=…&page=… */
function queryOf(params: Record<string, string>) {
  const sort = SORTS.some(([value]) => value === params.sort) ? (params.sort as Sort) : "newest";
  const heat = /^[0-5]$/.test(params.heat ?? "") ? params.heat! : "";
  const page = Math.max(1, Number.parseInt(params.page ?? "1", 10) || 1);
  return { search: params.search ?? "", heat, sort, page };
}

function addressOf(query: ReturnType<typeof queryOf>): string {
  const params = new URLSearchParams();
  if (query.search) params.set("search", query.search);
  if (query.heat) params.set("heat", query.heat);
  if (query.sort !== "newest") params.set("sort", query.sort);
  if (query.page > 1) params.set("page", String(query.page));
  const text = params.toString();
  return text ? `/?${text}` : "/";
}

/** The catalog: search, heat filter and sort, kept in the address so Back and a shared link work. */
export function Catalog() {
  usePageTitle("", "Storefront");
  const location = useLocation();
  const query = queryOf(location.query);
  const [search, setSearch] = useState(query.search);
  const [result, setResult] = useState<{ key: string; products: Product[]; total: number } | null>(null);
  const key = JSON.stringify(query);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => setSearch(query.search), [query.search]);
  useEffect(() => {
    let current = true;
    setProblem(null);
    const params = {
      ...(query.search ? { search: query.search } : {}),
      ...(query.heat ? { heatLevel: Number(query.heat) } : {}),
      sort: query.sort,
      page: query.page,
      limit: PAGE_SIZE,
    };
    unwrap(api.GET("/api/products", { params: { query: params } }))
      .then((page) => current && setResult({ key, products: page.data, total: page.meta.total }))
      .catch((error: unknown) => current && setProblem(problemFrom(error)));
    return () => {
      current = false;
    };
  }, [key, query.search, query.heat, query.sort, query.page]);

  const go = (changes: Partial<ReturnType<typeof queryOf>>) => location.route(addressOf({ ...query, page: 1, ...changes }));
  const pages = result ? Math.max(1, Math.ceil(result.total / PAGE_SIZE)) : 1;

  return (
    <>
      <h1>Hot sauces</h1>
      <search aria-label="Find a sauce">
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            go({ search: search.trim() });
          }}
        >
          <div class="filters__search">
            <TextField label="Search" name="search" type="search" value={search} onValue={setSearch} />
            <Button type="submit">Search</Button>
          </div>
          <SelectField label="Heat" name="heat" value={query.heat} onValue={(heat) => go({ heat })} options={HEATS} />
          <SelectField label="Sort by" name="sort" value={query.sort} onValue={(sort) => go({ sort: sort as Sort })} options={SORTS} />
        </form>
      </search>
      <Alert problem={problem} />
      {!result && !problem && <Loading what="Loading the catalog…" />}
      {result && (
        <>
          <p role="status" class="muted">
            {result.key !== key ? "Loading…" : result.total === 1 ? "1 sauce" : `${result.total} sauces`}
            {result.key === key && query.search && ` matching “${query.search}”`}
          </p>
          <ul class="grid products" aria-busy={result.key !== key}>
            {result.products.map((product) => (
              <li key={product.id} class="panel product-card">
                <ProductImage src={product.featuredImage} name={product.name} heat={product.heatLevel} />
                <h2 class="product-card__name">
                  <a href={`/products/${product.slug}`}>
                    <bdi>{product.name}</bdi>
                  </a>
                </h2>
                <Price price={product.price} compareAtPrice={product.compareAtPrice} />
                <Heat level={product.heatLevel} />
                {product.inventory > 0 ? <AddToCart productId={product.id} name={product.name} /> : <p class="muted">Out of stock</p>}
              </li>
            ))}
          </ul>
          {result.key === key && query.page > pages && (
            <p>
              There is no page {query.page}: {pages === 1 ? "the sauces fit on one page" : `the sauces fit on ${pages} pages`}.{" "}
              <a href={addressOf({ ...query, page: 1 })}>Go to the first page</a>
            </p>
          )}
          {pages > 1 && query.page <= pages && (
            <nav class="pagination" aria-label="Pages">
              {query.page > 1 && <a href={addressOf({ ...query, page: query.page - 1 })}>Previous page</a>}
              <span>
                Page {query.page} of {pages}
              </span>
              {query.page < pages && <a href={addressOf({ ...query, page: query.page + 1 })}>Next page</a>}
            </nav>
          )}
        </>
      )}
    </>
  );
}
