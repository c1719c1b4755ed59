/**
 * A time series chart (uPlot): one line per group, x = bucket start. Given a window, the x axis is
 * that window whatever the data covers, and a null value (an empty bucket) breaks its line.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: (number | null)[];
}

/** The instants (ms) the x axis spans. */
export interface TimeRange {
  from: number;
  to: number;
}

const COLORS = ['#2f6fb3', '#d9822b', '#2e9e5b', '#b03a48', '#7b5ea7', '#8c6d31', '#3a9fb0', '#666'];

/** Values with no neighbour to draw a line to: drawn as points, or they would not show at all. */
function isolated(values: (number | null)[]): number[] {
  return values.flatMap((v, i) => (v !== null && values[i - 1] == null && values[i + 1] == null ? [i] : []));
}

/** Connected runs of non-null values: what a line with gaps draws as separate pieces. */
function runs(values: (number | null)[]): number {
  return values.filter((v, i) => v !== null && (i === 0 || values[i - 1] === null)).length;
}

export function Chart({
  title,
  xs,
  series,
  format,
  range,
}: {
  title: string;
  xs: number[];
  series: Series[];
  format: (v: number) => string;
  range?: TimeRange;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = Math.max(320, el.clientWidth || 560);
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length]!,
            width: 2,
            spanGaps: false,
            points: { filter: (_u: uPlot, _i: number, show: boolean) => (show ? null : isolated(s.values)) },
            value: (_u: uPlot, v: number | null) => (v === null ? '–' : format(v)),
          })),
        ],
        axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map(format), size: 70 }],
        scales: {
          x: range ? { time: true, range: [range.from / 1000, range.to / 1000] } : { time: true },
          // Every measure drawn is a count, an amount or a share: from zero up, and 0–1 when all are zero.
          y: { range: (_u: uPlot, _min: number, max: number) => [0, max > 0 ? max * 1.1 : 1] },
        },
        legend: { live: true },
        hooks: {
          // What the axis and lines show, for a reader (and a test) without pixels.
          draw: [
            (u) => {
              el.dataset.xFrom = new Date(u.scales.x!.min! * 1000).toISOString();
              el.dataset.xTo = new Date(u.scales.x!.max! * 1000).toISOString();
              el.dataset.runs = series.map((s) => runs(s.values)).join(',');
            },
          ],
        },
      },
      [xs.map((x) => x / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    return () => plot.destroy();
  }, [xs, series, range?.from, range?.to]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {xs.length === 0 ? <p class="empty">No data in this window.</p> : <div ref={host} data-chart={title} />}
    </figure>
  );
}
