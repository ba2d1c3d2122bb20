import { useLocation } from "preact-iso";
import { type Schemas, api, run } from "../api.ts";
import { BarChart } from "../components/chart.tsx";
import { Field, PageTitle, ProblemNote, SelectField, TableWrap, formValues } from "../components/ui.tsx";
import { count, date, isoDay, money, queryOf } from "../format.ts";
import { useLoad } from "../load.ts";
import { useSession } from "../session.ts";

type Interval = Schemas["SalesReport"]["interval"];
type Figures = Schemas["SalesTotals"];
const INTERVALS: readonly Interval[] = ["day", "week", "month"];

/** The sales report (GET /api/admin/reports/sales) for a range of dates in the shop's zone, net sales drawn by period. */
export function ReportPage() {
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
      <PageTitle>Sales report</PageTitle>
      <form class="filters" onSubmit={apply} key={search} aria-label="Choose the dates">
        <Field id="from" label="From" type="date" required defaultValue={from} error={problem?.fields.from} />
        <Field id="to" label="To (included)" type="date" required defaultValue={to} error={problem?.fields.to} />
        <SelectField
          id="interval"
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
          <button type="submit">Show the report</button>
        </div>
      </form>
      <ProblemNote problem={problem} fields={["from", "to", "interval"]} />
      {loaded.state === "loading" && <p role="status">Loading the report…</p>}
      {report && (
        <>
          <div class="list-head">
            <p>
              {date(report.from)} to {date(report.to)}, by {report.interval}, in {report.timeZone}
            </p>
            {session.can("analytics:export") && (
              <a class="button" href={`/api/admin/reports/sales/export${search}`} download>
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
          <details>
            <summary>The figures by {report.interval}</summary>
            <TableWrap label={`Figures by ${report.interval}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Period from</th>
                    <th scope="col" class="num">
                      Orders
                    </th>
                    <th scope="col" class="num">
                      Units
                    </th>
                    <th scope="col" class="num">
                      Gross
                    </th>
                    <th scope="col" class="num">
                      Refunds
                    </th>
                    <th scope="col" class="num">
                      Net
                    </th>
                    <th scope="col" class="num">
                      Shipping
                    </th>
                    <th scope="col" class="num">
                      Tax
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.series.map((row) => (
                    <tr key={row.period}>
                      <th scope="row">{row.period}</th>
                      <td class="num">{count(row.orders)}</td>
                      <td class="num">{count(row.units)}</td>
                      <td class="num">{money(row.grossSales)}</td>
                      <td class="num">{money(row.refunds)}</td>
                      <td class="num">{money(row.netSales)}</td>
                      <td class="num">{money(row.shipping)}</td>
                      <td class="num">{money(row.tax)}</td>
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
              <table>
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col">SKU</th>
                    <th scope="col" class="num">
                      Units
                    </th>
                    <th scope="col" class="num">
                      Revenue
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.topProducts.map((product) => (
                    <tr key={product.productId}>
                      <th scope="row">{product.name}</th>
                      <td>{product.sku}</td>
                      <td class="num">{count(product.units)}</td>
                      <td class="num">{money(product.revenue)}</td>
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
    <dl class="totals">
      {figures.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
