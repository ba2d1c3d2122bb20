import { useEffect, useRef, useState } from "preact/hooks";

/** A bar chart drawn as SVG, our own: one bar a period, below the axis when the value is negative. */

export interface Bar {
  label: string;
  value: number;
}

/** A step for the axis that reads well: 1, 2 or 5 times a power of ten, about `wanted` steps from low to high. */
export function niceStep(span: number, wanted = 4): number {
  if (!(span > 0)) return 1;
  const raw = span / wanted;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

/** The axis: from a multiple of the step at or under the lowest value (and 0) to one at or over the highest. */
export function axisOf(values: readonly number[]): { low: number; high: number; ticks: number[] } {
  const min = Math.min(0, ...values);
  const max = Math.max(0, ...values);
  const step = niceStep(max - min || 1);
  const low = Math.floor(min / step) * step;
  const high = Math.max(Math.ceil(max / step) * step, low + step);
  const ticks: number[] = [];
  for (let tick = low; tick <= high + step / 2; tick += step) ticks.push(Math.round(tick * 100) / 100);
  return { low, high, ticks };
}

const HEIGHT = 260;
const LEFT = 64;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 36;
/** Room a period's label needs on the axis, in pixels. */
const LABEL_ROOM = 64;

/**
 * Drawn at the width it is shown at (measured, and again when the window changes), so its text
 * stays the same size on a phone and on a desktop. Each bar's own title names its period and value.
 */
export function BarChart({
  bars,
  title,
  format,
  tick = (label) => label,
}: {
  bars: readonly Bar[];
  title: string;
  format: (value: number) => string;
  /** A period's short name on the axis. */
  tick?: (label: string) => string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const measure = () => setWidth(Math.max(280, Math.floor(element.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const { low, high, ticks } = axisOf(bars.map((bar) => bar.value));
  const plotWidth = width - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const y = (value: number) => TOP + ((high - value) / (high - low)) * plotHeight;
  const slot = plotWidth / Math.max(1, bars.length);
  const barWidth = Math.max(1, Math.min(48, slot * 0.7));
  // Label only as many periods as fit, evenly, so the labels never overlap.
  const every = Math.max(1, Math.ceil(LABEL_ROOM / slot));
  return (
    <div class="chart-frame" ref={frame}>
      <svg class="chart" width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-label={title}>
        <title>{title}</title>
        {ticks.map((value) => (
          <g key={value} class="tick">
            <line x1={LEFT} x2={width - RIGHT} y1={y(value)} y2={y(value)} />
            <text x={LEFT - 6} y={y(value)} dy="0.32em" text-anchor="end">
              {format(value)}
            </text>
          </g>
        ))}
        {bars.map((bar, i) => {
          const x = LEFT + i * slot + (slot - barWidth) / 2;
          const top = y(Math.max(0, bar.value));
          const height = Math.abs(y(bar.value) - y(0));
          return (
            <g key={bar.label}>
              <rect class={bar.value < 0 ? "bar negative" : "bar"} x={x} y={top} width={barWidth} height={Math.max(height, bar.value === 0 ? 0 : 1)}>
                <title>{`${bar.label}: ${format(bar.value)}`}</title>
              </rect>
              {i % every === 0 && (
                <text class="period" x={x + barWidth / 2} y={HEIGHT - BOTTOM + 18} text-anchor="middle">
                  {tick(bar.label)}
                </text>
              )}
            </g>
          );
        })}
        <line class="axis" x1={LEFT} x2={width - RIGHT} y1={y(0)} y2={y(0)} />
      </svg>
    </div>
  );
}
