import { describe, expect, test } from "bun:test";
import { axisOf, niceStep } from "../../web/admin/components/chart.tsx";

// The sales report's chart (web/admin/components/chart.tsx) draws its own axis: its arithmetic, alone.
describe("the report chart's axis", () => {
  test("a step of 1, 2 or 5 times a power of ten, about four steps over the span", () => {
    expect([niceStep(59.94), niceStep(100), niceStep(7), niceStep(2_400), niceStep(0.3)]).toEqual([20, 50, 2, 1_000, 0.1]);
  });

  test("from zero (or the lowest value) to a step at or over the highest, ticks at every step", () => {
    expect(axisOf([0, 12.5, 59.94])).toEqual({ low: 0, high: 60, ticks: [0, 20, 40, 60] });
    // A period with more refunded than sold goes below the axis, which still shows 0.
    expect(axisOf([-25.5, 100])).toEqual({ low: -50, high: 100, ticks: [-50, 0, 50, 100] });
    // An empty range (every period 0) still has an axis to draw.
    expect(axisOf([0, 0, 0])).toEqual({ low: 0, high: 0.5, ticks: [0, 0.5] });
  });
});
