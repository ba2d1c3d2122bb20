import { useLocation } from "preact-iso";
import { type Schemas, api, run } from "../api.ts";
import { BarChart } from "../components/chart.tsx";
import { Button, Loading, usePageTitle } from "../../shared/ui.tsx";
import { Input, ProblemNote, Select, TableWrap, formValues } from "../components/ui.tsx";
import { count, date, isoDay, money, queryOf } from "../format.ts";
import { useLoad } from "../load.ts";
import { SITE, useSession } from "../session.ts";

type Interval = Schemas["SalesReport"]["interval"];
type Figures = Schemas["SalesTotals"];
const INTERVALS: readonly Interval[] = ["day", "week", "month"];

/** The sales report (GET /api/admin/reports/sales) for a range of dates in the shop's zone, net sales drawn by period. */
export function ReportPage() {
  usePageTitle("Sales report", SITE);
  const session = useSession();
  const { query, route } = useLocation();
  const from = query.from || isoDay(-29);
  const to = query.to || isoDay(0);
  const interval = (INTERVALS as readonly string[]).includes(query.interval ?? "") ? (query.interval as Interval) : "day";
  const search = queryOf({ from, to, interval });
  const loaded = useLoad(() => run(api.GET("/api/admin/reports/sales", { params: { query: { from, to, interval } } })), search);
  const problem = loaded.state === "failed" ? loaded.problem : null;

  function apply(event: Event) {
    event.preventDefault();
    route(`/admin/reports${queryOf(formValues(event.currentTarget as HTMLFormElement))}`);
  }

  const report = loaded.state === "ok" ? loaded.data.data : null;
  return (
    <section>
      <h1>Sales report</h1>
      <form class="filter-form" onSubmit={apply} key={search} aria-label="Choose the dates">
        <Input name="from" label="From" type="date" required defaultValue={from} error={problem?.fields.from} />
        <Input name="to" label="To (included)" type="date" required defaultValue={to} error={problem?.fields.to} />
        <Select
          name="interval"
          label="By"
          defaultValue={interval}
          options={[
            ["day", "Day"],
            ["week", "Week"],
            ["month", "Month"],
          ]}
          error={problem?.fields.interval}
        />
        <div class="actions">
          <Button type="submit">Show the report</Button>
        </div>
      </form>
      <ProblemNote problem={problem} fields={["from", "to", "interval"]} />
      {loaded.state === "loading" && <Loading what="Loading the report…" />}
      {report && (
        <>
          <div class="list-head">
            <p>
              {date(report.from)} to {date(report.to)}, by {report.interval}, in {report.timeZone}
            </p>
            {session.can("analytics:export") && (
              <a class="button button--secondary" href={`/api/admin/reports/sales/export${search}`} download>
                Export CSV
              </a>
            )}
          </div>
          <Totals totals={report.totals} />
          <h2>Net sales by {report.interval}</h2>
          <BarChart
            title={`Net sales by ${report.interval}, ${report.from} to ${report.to}`}
            bars={report.series.map((row) => ({ label: row.period, value: row.netSales }))}
            format={(value) => money(value).replace(/\.00$/, "")}
            tick={report.interval === "month" ? monthName : dayName}
          />
          <details class="period-figures">
            <summary>The figures by {report.interval}</summary>
            <TableWrap label={`Figures by ${report.interval}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Period from</th>
                    <th scope="col" class="number">
                      Orders
                    </th>
                    <th scope="col" class="number">
                      Units
                    </th>
                    <th scope="col" class="number">
                      Gross
                    </th>
                    <th scope="col" class="number">
                      Refunds
                    </th>
                    <th scope="col" class="number">
                      Net
                    </th>
                    <th scope="col" class="number">
                      Shipping
                    </th>
                    <th scope="col" class="number">
                      Tax
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.series.map((row) => (
                    <tr key={row.period}>
                      <th scope="row">{row.period}</th>
                      <td class="number">{count(row.orders)}</td>
                      <td class="number">{count(row.units)}</td>
                      <td class="number">{money(row.grossSales)}</td>
                      <td class="number">{money(row.refunds)}</td>
                      <td class="number">{money(row.netSales)}</td>
                      <td class="number">{money(row.shipping)}</td>
                      <td class="number">{money(row.tax)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </details>
          <h2>Top products</h2>
          {report.topProducts.length === 0 ? (
            <p>Nothing sold in this range.</p>
          ) : (
            <TableWrap label="Top products">
              {/* Cards on a narrow screen: four columns at 375 px broke names and SKUs mid-word (found by a newcomer). */}
              <table class="cards">
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col">SKU</th>
                    <th scope="col" class="number">
                      Units
                    </th>
                    <th scope="col" class="number">
                      Revenue
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.topProducts.map((product) => (
                    <tr key={product.productId}>
                      <th scope="row" data-label="Product">
                        <bdi>{product.name}</bdi>
                      </th>
                      <td data-label="SKU">{product.sku}</td>
                      <td class="number" data-label="Units">
                        {count(product.units)}
                      </td>
                      <td class="number" data-label="Revenue">
                        {money(product.revenue)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </section>
  );
}

const shortDay = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const shortMonth = new Intl.DateTimeFormat("en-US", { month: "short", year: "numeric", timeZone: "UTC" });
const dayName = (isoDate: string) => shortDay.format(new Date(`${isoDate}T00:00:00Z`));
const monthName = (isoDate: string) => shortMonth.format(new Date(`${isoDate}T00:00:00Z`));

function Totals({ totals }: { totals: Figures }) {
  const figures: Array<[string, string]> = [
    ["Orders", count(totals.orders)],
    ["Units", count(totals.units)],
    ["Gross sales", money(totals.grossSales)],
    ["Refunds", money(totals.refunds)],
    ["Net sales", money(totals.netSales)],
    ["Shipping", money(totals.shipping)],
    ["Tax", money(totals.tax)],
    ["Average order", money(totals.averageOrderValue)],
  ];
  return (
    <dl class="figures">
      {figures.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
