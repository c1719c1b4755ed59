/** A time series chart (uPlot): one line per group, x = bucket start. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: (number | null)[];
}

const COLORS = ['#2f6fb3', '#d9822b', '#2e9e5b', '#b03a48', '#7b5ea7', '#8c6d31', '#3a9fb0', '#666'];

export function Chart({
  title,
  xs,
  series,
  format,
}: {
  title: string;
  xs: number[];
  series: Series[];
  format: (v: number) => string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const width = Math.max(320, host.current.clientWidth || 560);
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
            points: { show: xs.length < 60 },
            value: (_u: uPlot, v: number | null) => (v === null ? '–' : format(v)),
          })),
        ],
        axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map(format), size: 70 }],
        scales: { x: { time: true } },
        legend: { live: true },
      },
      [xs.map((x) => x / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
      host.current,
    );
    return () => plot.destroy();
  }, [xs, series]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {xs.length === 0 ? <p class="empty">No data in this window.</p> : <div ref={host} data-chart={title} />}
    </figure>
  );
}
