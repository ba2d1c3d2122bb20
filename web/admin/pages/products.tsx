import type { ComponentChildren } from "preact";
import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { type Problem, type Schemas, api, localProblem, run } from "../api.ts";
import { Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { Input, Notice, Pager, ProblemNote, Select, TableWrap, formValues } from "../components/ui.tsx";
import { count, money, queryOf } from "../format.ts";
import { useLoad } from "../load.ts";
import { SITE, useProblemSetter, useSession } from "../session.ts";

type Product = Schemas["Product"];

/** Every product, off sale too (GET /api/admin/products): low stock, inventory adjustment and on/off sale for those with products:write. */
export function ProductsPage() {
  usePageTitle("Products", SITE);
  const session = useSession();
  const { query, route } = useLocation();
  const q = query.q ?? "";
  const isActive = query.isActive === "true" || query.isActive === "false" ? query.isActive : "";
  const lowStock = query.lowStock === "true";
  const page = Number(query.page) || 1;
  const filters = { q, isActive, lowStock: lowStock ? "true" : "" };
  const search = queryOf({ ...filters, page: page > 1 ? page : undefined });
  const loaded = useLoad(
    () =>
      run(
        api.GET("/api/admin/products", {
          params: {
            query: {
              q: q || undefined,
              isActive: isActive === "" ? undefined : isActive === "true",
              lowStock: lowStock ? true : undefined,
              page,
              limit: 20,
            },
          },
        }),
      ),
    search,
  );
  const [done, setDone] = useState<ComponentChildren>(null);
  const problem = loaded.state === "failed" ? loaded.problem : null;
  const mayWrite = session.can("products:write");

  function apply(event: Event) {
    event.preventDefault();
    setDone(null);
    route(`/admin/products${queryOf(formValues(event.currentTarget as HTMLFormElement))}`);
  }

  async function changed(news: ComponentChildren) {
    await loaded.reload();
    setDone(news);
  }

  return (
    <section>
      <h1>Products</h1>
      <form class="filter-form" onSubmit={apply} key={search} aria-label="Filter the products">
        <Input name="q" label="Search" hint="Part of the name or the SKU" type="search" defaultValue={q} error={problem?.fields.q} />
        <Select
          name="isActive"
          label="On sale"
          defaultValue={isActive}
          options={[
            ["", "On sale or not"],
            ["true", "On sale"],
            ["false", "Off sale"],
          ]}
          error={problem?.fields.isActive}
        />
        <label class="choice">
          <input type="checkbox" name="lowStock" value="true" defaultChecked={lowStock} />
          Low stock only
        </label>
        <div class="actions">
          <Button type="submit">Show products</Button>
          <a href="/admin/products">Clear filters</a>
        </div>
      </form>
      <ProblemNote problem={problem} fields={["q", "isActive", "lowStock"]} />
      {done && <Notice>{done}</Notice>}
      {loaded.state === "loading" && <Loading what="Loading products…" />}
      {loaded.state === "ok" && (
        <>
          <p>{loaded.data.meta.total === 1 ? "1 product" : `${loaded.data.meta.total} products`}</p>
          {loaded.data.data.length > 0 && (
            <TableWrap label="Products">
              <table class="cards">
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col">SKU</th>
                    <th scope="col" class="number">
                      Price
                    </th>
                    <th scope="col" class="number">
                      In stock
                    </th>
                    <th scope="col">On sale</th>
                    {mayWrite && <th scope="col">Change</th>}
                  </tr>
                </thead>
                <tbody>
                  {loaded.data.data.map((product) => (
                    <tr key={product.id}>
                      <th scope="row" data-label="Product">
                        <bdi>{product.name}</bdi>
                      </th>
                      <td data-label="SKU">{product.sku}</td>
                      <td class="number" data-label="Price">
                        {money(product.price)}
                      </td>
                      <td class="number" data-label="In stock">
                        {product.inventory === 0 ? <span class="badge badge--bad">Sold out</span> : count(product.inventory)}
                      </td>
                      <td data-label="On sale">{product.isActive ? "Yes" : "No"}</td>
                      {mayWrite && (
                        <td>
                          <div class="change">
                            <Adjust product={product} onChanged={changed} />
                            <SaleSwitch product={product} onChanged={changed} />
                          </div>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager meta={loaded.data.meta} hrefFor={(n) => `/admin/products${queryOf({ ...filters, page: n })}`} />
        </>
      )}
    </section>
  );
}

/** Adds units to the stock or takes them (POST /api/admin/products/:id/inventory), with the reason the audit log keeps. */
function Adjust({ product, onChanged }: { product: Product; onChanged: (news: ComponentChildren) => Promise<void> }) {
  const [problem, showProblem] = useState<Problem | null>(null);
  const setProblem = useProblemSetter(showProblem);
  const [busy, setBusy] = useState(false);

  async function adjust(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const values = new FormData(form);
    const deltaText = String(values.get("delta") ?? "").trim();
    const delta = Number(deltaText);
    if (!/^[+-]?\d+$/.test(deltaText) || delta === 0) {
      return setProblem(localProblem("Check the units.", { delta: "a whole number of units other than 0 (negative takes units)" }));
    }
    setProblem(null);
    setBusy(true);
    const outcome = await run(
      api.POST("/api/admin/products/{id}/inventory", {
        params: { path: { id: product.id } },
        body: { delta, reason: String(values.get("reason") ?? "").trim() },
      }),
    );
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    form.reset();
    // The name isolated, as what staff typed: a right-to-left one turns around itself, never the counts.
    await onChanged(
      <>
        <bdi>{product.name}</bdi>: {count(product.inventory)} → {count(outcome.data.data.inventory)} in stock.
      </>,
    );
  }

  return (
    <details class="adjust">
      <summary>Adjust stock</summary>
      <form onSubmit={adjust} noValidate aria-label={`Adjust the stock of ${product.name}`}>
        <ProblemNote problem={problem} fields={["delta", "reason"]} />
        <Input name="delta" label="Units to add (negative to take)" type="number" step={1} required error={problem?.fields.delta} />
        <Input name="reason" label="Reason" required maxLength={200} error={problem?.fields.reason} />
        <Button type="submit" busy={busy}>
          Apply
        </Button>
      </form>
    </details>
  );
}

/** Puts a product on sale or takes it off (PUT /api/products/:id with isActive). */
function SaleSwitch({ product, onChanged }: { product: Product; onChanged: (news: ComponentChildren) => Promise<void> }) {
  const [problem, showProblem] = useState<Problem | null>(null);
  const setProblem = useProblemSetter(showProblem);
  const [busy, setBusy] = useState(false);

  async function toggle() {
    setBusy(true);
    const outcome = await run(api.PUT("/api/products/{id}", { params: { path: { id: product.id } }, body: { isActive: !product.isActive } }));
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    await onChanged(
      <>
        <bdi>{product.name}</bdi> is {outcome.data.data.isActive ? "on sale" : "off sale"} now.
      </>,
    );
  }

  return (
    <div class="sale-switch">
      <Button
        variant="secondary"
        busy={busy}
        onClick={() => void toggle()}
        aria-label={`${product.isActive ? "Take off sale" : "Put on sale"}: ${product.name}`}
      >
        {product.isActive ? "Take off sale" : "Put on sale"}
      </Button>
      {problem && (
        <span class="field-error" role="alert">
          {problem.message}
        </span>
      )}
    </div>
  );
}
